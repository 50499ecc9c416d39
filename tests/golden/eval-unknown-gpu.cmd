eval tests/fixtures/eval/unknown-gpu.yaml
