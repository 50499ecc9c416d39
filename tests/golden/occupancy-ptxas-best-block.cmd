occupancy --gpu a100-sxm-80gb --ptxas tests/fixtures/occupancy/ptxas-cuda11-sm80.txt
