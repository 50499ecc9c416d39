cost decode --model examples/models/mixtral-8x7b.json --context 4096 --batch 32 --gpus 8 --gpu h100-sxm --expert-parallel --comm-overlap 25%
