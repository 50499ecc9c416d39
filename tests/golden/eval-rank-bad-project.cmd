eval tests/fixtures/eval/rank-bad-project.yaml
