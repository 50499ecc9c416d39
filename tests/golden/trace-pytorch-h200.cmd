trace tests/fixtures/trace/pytorch-h200-decode.json --steps 8 --tokens 32 --top 8
