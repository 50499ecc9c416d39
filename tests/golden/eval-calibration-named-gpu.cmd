eval examples/decode-launch-overhead.yaml --calibration validation/h200-calibration.yaml
