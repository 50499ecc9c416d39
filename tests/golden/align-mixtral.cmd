align --dtype bf16 --model examples/models/mixtral-8x7b.json --tokens 4096
