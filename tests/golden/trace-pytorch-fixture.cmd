trace tests/fixtures/trace/pytorch-decode.json --tokens 1 --top 1
