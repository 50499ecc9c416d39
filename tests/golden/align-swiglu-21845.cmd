align --dtype bf16 --model examples/models/swiglu-8192-21845.yaml
