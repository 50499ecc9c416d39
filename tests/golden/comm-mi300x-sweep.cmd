comm --gpu mi300x --gpus 8 --op all-reduce --bytes 64MiB --sweep
