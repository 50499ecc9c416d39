occupancy --threads 1025 --regs 32
