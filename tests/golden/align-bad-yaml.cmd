align --dtype bf16 --model tests/data/align/bad-indent.yaml
