roofline --gpu h200-sxm --ncu tests/fixtures/ncu/long_h200.csv --dtype bf16
