eval tests/fixtures/eval/expect-fails.yaml
