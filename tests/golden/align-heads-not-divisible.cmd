align --dtype bf16 --model tests/data/align/heads-not-divisible.json
