occupancy --gpu h100-sxm --threads 256 --regs 32 --smem 32KiB
