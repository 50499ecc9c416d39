gemm --m 8 --n 8 --k 8 --dtype bfloat16
