occupancy --gpu h100-sxm --threads 800 --regs 80
