occupancy --ptxas tests/fixtures/occupancy/garbage.txt
