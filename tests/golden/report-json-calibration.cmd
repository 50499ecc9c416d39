report --calibration validation/h200-calibration.yaml --json
