align --dtype bf16 --dims 8192,8191,8184 --calibration validation/h200-calibration.yaml
