roofline --ncu tests/fixtures/ncu/raw_h200.csv --time 1ms
