eval tests/fixtures/eval/model-config-missing.yaml
