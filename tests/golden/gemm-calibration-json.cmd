gemm --m 4096 --n 4096 --k 4096 --dtype bf16 --calibration validation/h200-calibration.yaml --json
