cost train --params 70e9 --seq 4096 --batch 2048 --steps 1M --gpus 512 --price 3 --mfu 40
