gemm --m 4096 --n 4096 --k 4096 --dtype bf16 --tile 128x128x64 --calibration validation/h200-calibration.yaml
