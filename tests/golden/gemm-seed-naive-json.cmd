gemm --gpu h100-sxm --m 4096 --n 4096 --k 4096 --dtype fp32 --naive --json
