occupancy --gpu a100-sxm-80gb --ptxas examples/occupancy/ptxas-cuda11-sm80.txt
