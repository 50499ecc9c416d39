align --dtype bf16 --model tests/data/align/no-such-config.json
