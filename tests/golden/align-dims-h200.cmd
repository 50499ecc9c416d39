align --dtype bf16 --dims d_model=6000,ffn=21845,fix=21888 --gpu h200-sxm
