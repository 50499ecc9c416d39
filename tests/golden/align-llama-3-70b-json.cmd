align --dtype bf16 --model examples/models/llama-3-70b.json --json
