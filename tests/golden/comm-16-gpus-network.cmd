comm --gpu h100-sxm --gpus 16 --op all-reduce --bytes 1GiB --network-bw 50GB/s --algorithm tree
