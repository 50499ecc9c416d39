roofline --gpu h100-sxm --kernel gemv --n 14336 --k 4096 --explain
