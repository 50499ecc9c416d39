gemm --m 8 --n 8 --k 8 --tile 32x32
