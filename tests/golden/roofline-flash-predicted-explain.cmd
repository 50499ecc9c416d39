roofline --gpu h200-sxm --kernel flash-attention --seq 4096 --heads 32 --head-dim 128 --causal --explain
