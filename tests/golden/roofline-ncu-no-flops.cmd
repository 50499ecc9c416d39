roofline --ncu tests/fixtures/ncu/bad/no-flops.csv
