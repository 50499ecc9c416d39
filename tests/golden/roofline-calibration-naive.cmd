roofline --kernel gemm-naive --m 4096 --n 4096 --k 4096 --dtype fp32 --calibration validation/h200-calibration.yaml
