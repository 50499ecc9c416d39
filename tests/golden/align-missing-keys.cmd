align --dtype bf16 --model tests/data/align/missing-keys.json
