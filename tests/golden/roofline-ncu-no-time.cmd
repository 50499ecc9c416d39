roofline --ncu tests/fixtures/ncu/bad/no-time.csv
