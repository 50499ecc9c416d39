launch --kernels-per-layer 6 --layers 80 --step-ms 25 --calibration tests/fixtures/calibration/h100-sxm-launch.yaml
