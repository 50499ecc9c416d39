occupancy --regs 32
