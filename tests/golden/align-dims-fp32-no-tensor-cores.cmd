align --dtype fp32 --dims 4096,4100 --gpu h100-sxm
