roofline --gpu h100-sxm --kernel gemm-naive --m 4096 --n 4096 --k 4096 --dtype fp32
