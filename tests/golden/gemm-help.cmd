gemm --help
