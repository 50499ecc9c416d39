comm --gpu h200-sxm --gpus 8 --op all-reduce --bytes 64MiB
