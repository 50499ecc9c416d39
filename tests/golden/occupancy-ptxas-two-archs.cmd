occupancy --gpu h100-sxm --ptxas tests/fixtures/occupancy/ptxas-two-archs.txt --threads 256
