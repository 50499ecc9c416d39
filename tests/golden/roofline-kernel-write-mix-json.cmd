roofline --kernel vector-add --n 268435456 --dtype fp32 --calibration validation/h200-calibration.yaml --json
