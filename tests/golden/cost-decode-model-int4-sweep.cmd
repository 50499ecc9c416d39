cost decode --model examples/models/llama-3-8b.json --context 2048 --batch 8 --gpus 1 --gpu h200-sxm --weight-dtype int4 --sweep
