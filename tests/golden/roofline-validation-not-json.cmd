roofline --validation validation/h200-calibration.yaml
