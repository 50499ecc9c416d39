launch --kernels-per-layer 0 --layers 80
