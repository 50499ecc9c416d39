model examples/models/deepseek-v3.json --tokens 4096
