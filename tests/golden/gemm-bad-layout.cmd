gemm --m 64 --n 64 --k 64 --layout tn
