launch --kernels-per-layer 6 --layers 80 --step-ms 25 --calibration validation/h200-calibration.yaml
