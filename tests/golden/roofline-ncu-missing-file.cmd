roofline --ncu tests/fixtures/ncu/nope.csv
