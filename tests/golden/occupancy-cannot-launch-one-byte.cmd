occupancy --gpu h100-sxm --threads 256 --regs 32 --dyn-smem 232449 --optin
