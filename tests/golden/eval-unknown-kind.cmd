eval tests/fixtures/eval/unknown-kind.yaml
