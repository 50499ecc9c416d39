gemm --m 4096 --n 4096 --k 4096 --dtype bf16 --traffic compulsory --time 190us
