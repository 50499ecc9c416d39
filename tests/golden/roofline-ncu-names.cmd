roofline --ncu tests/fixtures/ncu/names.csv --gpu h200-sxm
