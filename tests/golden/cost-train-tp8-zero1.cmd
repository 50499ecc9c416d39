cost train --params 70e9 --seq 4096 --batch 2048 --steps 1M --gpus 512 --gpu h100-sxm --mfu 40% --price 3 --tp 8 --hidden-size 8192 --layers 80 --network-bw 50GB/s --dp-overlap 0.8 --sharding zero1
