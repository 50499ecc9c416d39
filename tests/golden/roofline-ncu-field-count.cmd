roofline --ncu tests/fixtures/ncu/bad/field-count.csv
