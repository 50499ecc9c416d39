eval tests/fixtures/eval/inline-shape.yaml
