align --dtype bf16 --model tests/data/align/qwen2-7b.json
