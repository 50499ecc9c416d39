gemm --m 8191 --n 4096 --k 4096 --dtype bf16
