comm --gpu mi300x --gpus 2 --op send-recv --bytes 1GiB
