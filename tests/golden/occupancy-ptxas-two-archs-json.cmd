occupancy --gpu a100-sxm-80gb --ptxas tests/fixtures/occupancy/ptxas-two-archs.txt --threads 256 --json
