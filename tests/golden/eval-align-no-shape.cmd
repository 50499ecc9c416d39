eval tests/fixtures/eval/align-no-shape.yaml
