gemm --m 4096 --n 4095 --k 4096 --dtype bf16 --layout matmul
