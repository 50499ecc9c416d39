cost prefill --model examples/models/llama-3-8b.json --seq 2048 --batch 1 --gpus 1 --gpu h200-sxm --calibration validation/h200-calibration.yaml
