occupancy --threads 256 --regs 32 --smem 32KiB --dyn-smem 200KiB --optin
