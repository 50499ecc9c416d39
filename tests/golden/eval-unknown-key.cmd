eval tests/fixtures/eval/unknown-key.yaml
