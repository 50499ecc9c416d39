launch --kernels-per-layer 6 --layers 80 --graph-step-ms 19.5
