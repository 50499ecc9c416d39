occupancy --ptxas tests/fixtures/occupancy/ptxas-cuda13.txt --regs 32
