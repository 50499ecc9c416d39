eval tests/fixtures/eval/overflow.yaml
