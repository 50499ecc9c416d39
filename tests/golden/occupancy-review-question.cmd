occupancy --gpu h100-sxm --threads 256 --regs 48 --smem 48KiB
