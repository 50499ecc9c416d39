roofline --kernel flash-attention --seq 8 --heads 8 --kv-heads 3 --head-dim 64
