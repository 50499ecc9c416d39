roofline --kernel rmsnorm-linear --m 4096 --k 8192 --n 28672 --fused
