occupancy --gpu mi300x --resource-usage tests/fixtures/occupancy/amd-remarks.txt --threads 256
