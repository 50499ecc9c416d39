gemm --m 8 --n 8
