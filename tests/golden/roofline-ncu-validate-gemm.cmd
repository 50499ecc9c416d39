roofline --gpu h200-sxm --calibration validation/h200-calibration.yaml --ncu tests/fixtures/ncu_h200_gemm.csv
