gemm --m 4096 --n 4096 --k 4088 --dtype fp8
