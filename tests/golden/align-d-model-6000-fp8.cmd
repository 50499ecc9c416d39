align --dtype fp8 --model examples/models/d-model-6000.json
