cost decode --params 70553706496 --layers 80 --kv-heads 8 --head-dim 128 --context 8192 --gpus 8 --gpu h100-sxm --batch 32 --sweep
