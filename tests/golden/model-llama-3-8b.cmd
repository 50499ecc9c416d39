model examples/models/llama-3-8b.json
