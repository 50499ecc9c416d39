eval tests/fixtures/eval/align-shape-with-dims.yaml
