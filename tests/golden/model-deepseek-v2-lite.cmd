model examples/models/deepseek-v2-lite.json
