comm --gpu h100-sxm --gpus 8 --op all-gather --bytes 256MiB --json
