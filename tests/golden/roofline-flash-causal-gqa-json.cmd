roofline --kernel flash-attention --seq 8192 --heads 64 --kv-heads 8 --head-dim 128 --causal --traffic compulsory --json
