cost prefill --model examples/models/deepseek-v2-lite.json --seq 4096 --batch 2 --gpus 1 --gpu h100-sxm --json
