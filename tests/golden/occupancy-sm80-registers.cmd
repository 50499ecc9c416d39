occupancy --gpu a100-sxm-80gb --threads 224 --regs 92
