eval tests/fixtures/eval/no-such-file.yaml
