occupancy --threads 0 --regs 32
