occupancy --gpu l4 --ptxas tests/fixtures/occupancy/ptxas-two-archs.txt --threads 256
