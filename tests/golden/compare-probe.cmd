compare tests/fixtures/probe_h200_2026-11-30.json tests/fixtures/validate_h200.json --threshold 5%
