occupancy --gpu h100-sxm --resource-usage tests/fixtures/occupancy/cuobjdump-sm90.txt --threads 256
