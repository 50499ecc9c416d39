roofline --kernel rmsnorm-linear --k 8 --n 8 --fused --unfused
