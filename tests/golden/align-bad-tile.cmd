align --dtype bf16 --dims 8192 --tile 128
