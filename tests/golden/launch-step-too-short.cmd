launch --kernels-per-layer 6 --layers 80 --step-ms 1
