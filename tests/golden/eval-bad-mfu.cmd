eval tests/fixtures/eval/bad-mfu.yaml
