occupancy --gpu mi300x --resource-usage examples/occupancy/amd-remarks.txt --threads 256
