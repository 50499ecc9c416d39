cost decode --model examples/models/deepseek-v3.json --context 8192 --batch 16 --gpus 8 --gpu h200-sxm --weight-dtype fp8 --kv-dtype fp8
