cost prefill --model examples/models/llama-3-70b.json --seq 8192 --batch 1 --gpus 8 --gpu h100-sxm --json
