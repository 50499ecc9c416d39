roofline --gpu a100-sxm-80gb --kernel gemm --m 4096 --n 4096 --k 4096 --dtype fp8
