align --dtype fp16 --dims 6000,21845,8184 --gpu v100-sxm2
