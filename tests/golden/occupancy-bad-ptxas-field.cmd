occupancy --ptxas tests/fixtures/occupancy/ptxas-bad-field.txt
