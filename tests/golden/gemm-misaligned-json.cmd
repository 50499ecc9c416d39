gemm --m 4096 --n 21845 --k 8192 --dtype bf16 --json
