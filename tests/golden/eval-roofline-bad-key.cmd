eval tests/fixtures/roofline/eval-bad.yaml
