roofline --ncu tests/fixtures/ncu/bad/header-only.csv
