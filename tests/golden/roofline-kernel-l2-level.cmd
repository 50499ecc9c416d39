roofline --calibration tests/fixtures/roofline/h100-sxm-inner.yaml --kernel gemm --m 4096 --n 4096 --k 4096 --level l2
