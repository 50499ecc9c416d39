occupancy --ptxas tests/fixtures/occupancy/no-such-file.txt
