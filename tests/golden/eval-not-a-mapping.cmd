eval tests/fixtures/eval/not-a-mapping.yaml
