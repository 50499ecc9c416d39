tui --dump tests/fixtures/eval/no-gpu.yaml --calibration validation/h200-calibration.yaml
