eval tests/fixtures/eval/expect-unknown-result.yaml
