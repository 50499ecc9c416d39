align --dtype fp8 --dims 4096 --gpu a100-sxm-80gb
