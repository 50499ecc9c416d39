model examples/models/mixtral-8x7b.json --tokens 32 --json
