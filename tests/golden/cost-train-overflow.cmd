cost train --params 1e300 --seq 1e9 --batch 1e9 --steps 1 --gpus 1 --mfu 0.5 --price 1
