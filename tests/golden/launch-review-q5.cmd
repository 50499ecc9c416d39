launch --kernels-per-layer 6 --layers 80 --step-ms 22 --graph-step-ms 19.5 --target-ms 8
