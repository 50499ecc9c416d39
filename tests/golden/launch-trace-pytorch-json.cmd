launch --trace tests/fixtures/trace/pytorch-decode.json --layers 2 --json
