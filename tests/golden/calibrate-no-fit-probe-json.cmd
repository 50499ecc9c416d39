calibrate --timings measurements/2026-12-01-h200-heldout/timings.json --calibration validation/h200-calibration.yaml --no-fit --json
