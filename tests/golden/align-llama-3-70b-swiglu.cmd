align --dtype bf16 --model examples/models/llama-3-70b.json --ffn-dim-multiplier 1.3 --multiple-of 1024
