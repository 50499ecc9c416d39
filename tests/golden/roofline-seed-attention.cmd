roofline --kernel attention --seq 8192 --heads 64 --head-dim 128 --dtype bf16 --gpu h100-sxm
