roofline --kernel vector-add --n 64M --dtype fp32 --time 180us --gpu h200-sxm
