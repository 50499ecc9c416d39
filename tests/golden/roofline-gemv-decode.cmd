roofline --kernel gemv --n 8192 --k 8192 --dtype bf16 --gpu h200-sxm
