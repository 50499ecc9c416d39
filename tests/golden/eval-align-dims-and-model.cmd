eval tests/fixtures/eval/align-dims-and-model.yaml
