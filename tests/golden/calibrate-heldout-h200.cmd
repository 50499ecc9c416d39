calibrate --timings measurements/2026-12-01-h200-heldout/timings.json --calibration measurements/2026-12-01-h200-heldout/calibration.yaml
