roofline --kernel gemm --m 1.5 --n 8 --k 8
