occupancy --gpu mi250x --threads 256 --regs 102 --agprs 64 --sgprs 40 --json
