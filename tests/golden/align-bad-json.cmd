align --dtype bf16 --model tests/data/align/missing-comma.json
