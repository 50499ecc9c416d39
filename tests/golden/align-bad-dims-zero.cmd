align --dtype bf16 --dims d_model=0
