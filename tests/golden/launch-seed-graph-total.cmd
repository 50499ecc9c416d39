launch --kernels-per-layer 6 --layers 80 --launch-us 5 --graph-us 24 --step-ms 10
