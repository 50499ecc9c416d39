eval tests/fixtures/eval/step-too-short.yaml
