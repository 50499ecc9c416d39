occupancy --gpu h100-sxm --ptxas tests/fixtures/occupancy/ptxas-cuda13.txt --threads 256
