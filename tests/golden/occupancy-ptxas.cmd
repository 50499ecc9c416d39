occupancy --gpu h100-sxm --ptxas examples/occupancy/ptxas-cuda13.txt --threads 256
