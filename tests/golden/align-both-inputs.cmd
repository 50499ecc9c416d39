align --dtype bf16 --dims 8 --model examples/models/llama-3-8b.json
