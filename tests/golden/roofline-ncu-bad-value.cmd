roofline --ncu tests/fixtures/ncu/bad/bad-value.csv
