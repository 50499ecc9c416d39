cost decode --model examples/models/mixtral-8x7b.json --context 4096 --batch 32 --gpus 2 --gpu h100-sxm --launch eager --json
