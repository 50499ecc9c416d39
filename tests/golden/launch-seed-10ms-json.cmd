launch --kernels-per-layer 6 --layers 80 --launch-us 5us --step-ms 10ms --json
