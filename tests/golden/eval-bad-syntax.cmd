eval tests/fixtures/eval/bad-syntax.yaml
