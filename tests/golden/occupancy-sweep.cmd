occupancy --gpu l4 --regs 40 --smem 8KiB --sweep
