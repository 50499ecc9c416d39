cost decode --params 70e9 --layers 80 --kv-heads 8 --head-dim 128 --context 8192 --batch 1 --gpus 8 --calibration validation/h200-calibration.yaml
