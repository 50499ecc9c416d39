roofline --gpu h200-sxm --calibration validation/h200-calibration.yaml --validation validation/h200-validation.json --group fp32_gemm
