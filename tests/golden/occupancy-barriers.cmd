occupancy --gpu h200-sxm --threads 64 --regs 16 --barriers 16
