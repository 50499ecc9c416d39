gemm --m 512 --n 4096 --k 4096 --batch 16 --dtype fp8 --gpu h200-sxm
