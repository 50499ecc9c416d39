launch --kernels-per-layer 6 --layers 80 --launch-us fast
