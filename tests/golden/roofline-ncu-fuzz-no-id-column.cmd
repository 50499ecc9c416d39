roofline --ncu tests/fuzz/corpus/ncu/crash-1868e731-no-id-column.csv
