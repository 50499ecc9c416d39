roofline --ncu tests/fixtures/ncu/bad/bad-unit.csv
