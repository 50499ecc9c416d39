roofline --kernel gemm-tiled --tile 32 --m 4096 --n 4096 --k 4096 --dtype bf16
