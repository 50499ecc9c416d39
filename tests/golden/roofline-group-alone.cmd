roofline --group fused --kernel gemm --m 8 --n 8 --k 8
