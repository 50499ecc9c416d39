comm --gpu h100-sxm --gpus 1 --op all-reduce --bytes 1GiB
