occupancy --gpu h100-sxm --resource-usage examples/occupancy/cuobjdump-sm90.txt --threads 256
