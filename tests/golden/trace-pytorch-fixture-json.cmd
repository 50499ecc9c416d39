trace tests/fixtures/trace/pytorch-decode.json --json
