cost train --params 70e9 --seq 4096 --batch 2048 --steps 1M --gpus 512 --mfu 40% --price 3 --peak 989T --flops-formula palm --layers 80 --heads 64 --head-dim 128 --causal --json
