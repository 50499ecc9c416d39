occupancy --threads 256 --regs 32 --smem 64KiB
