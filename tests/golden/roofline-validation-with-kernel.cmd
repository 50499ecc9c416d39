roofline --validation validation/h200-validation.json --kernel gemm --m 8 --n 8 --k 8
