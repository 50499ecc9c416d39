trace tests/fixtures/trace/pytorch-h200-decode.json --steps 8 --top 3 --json
