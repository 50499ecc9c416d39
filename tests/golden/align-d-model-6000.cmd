align --dtype bf16 --model examples/models/d-model-6000.json
