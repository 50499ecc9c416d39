align --dtype bf16 --model examples/models/vocab-32001.json
