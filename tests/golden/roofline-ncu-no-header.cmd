roofline --ncu tests/fixtures/ncu/bad/no-header.csv
