occupancy --threads many --regs 32
