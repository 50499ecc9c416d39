roofline --gpu h200-sxm --ncu tests/fixtures/ncu/raw_h200.csv --json
