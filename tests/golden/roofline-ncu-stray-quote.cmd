roofline --ncu tests/fixtures/ncu/bad/stray-quote.csv
