eval tests/fixtures/eval/align-model-missing.yaml
