launch --kernels-per-layer 6
