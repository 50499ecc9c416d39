align --dtype bf16 --model tests/data/align/fractional.json
