eval tests/fixtures/eval/align-inline-shape.yaml
