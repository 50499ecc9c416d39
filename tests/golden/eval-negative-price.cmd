eval tests/fixtures/eval/negative-price.yaml
