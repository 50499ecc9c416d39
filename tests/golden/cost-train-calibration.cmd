cost train --params 70e9 --seq 4096 --batch 512 --steps 1000 --gpus 64 --mfu 0.45 --price 3.5 --calibration validation/h200-calibration.yaml
