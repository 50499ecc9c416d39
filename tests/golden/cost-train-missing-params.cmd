cost train --seq 4096 --batch 2048 --steps 1M --gpus 512 --mfu 40% --price 3
