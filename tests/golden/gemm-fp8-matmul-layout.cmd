gemm --m 4096 --n 4096 --k 4096 --dtype fp8 --layout matmul
