occupancy --ptxas examples/occupancy/ptxas-cuda13.txt --regs 32
