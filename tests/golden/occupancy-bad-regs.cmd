occupancy --threads 256 --regs 256
