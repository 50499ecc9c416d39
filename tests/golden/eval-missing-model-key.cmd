eval tests/fixtures/eval/missing-model-key.yaml
