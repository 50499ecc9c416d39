roofline --ncu tests/fixtures/ncu/bad/unterminated.csv
