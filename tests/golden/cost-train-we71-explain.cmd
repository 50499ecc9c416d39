cost train --params 70e9 --seq 4096 --batch 2048 --steps 1M --gpus 512 --mfu 40% --target-mfu 0.65 --price 3 --investment '$240k' --peak 989T --explain
