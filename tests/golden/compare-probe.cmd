compare tests/fixtures/probe_h200.json tests/fixtures/validate_h200.json --threshold 5%
