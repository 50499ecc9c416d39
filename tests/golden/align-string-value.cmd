align --dtype bf16 --model tests/data/align/string-value.json
