eval tests/fixtures/eval/align-bad-dims-element.yaml
