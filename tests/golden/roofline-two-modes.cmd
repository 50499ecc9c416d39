roofline --intensity 3 --kernel gemm
