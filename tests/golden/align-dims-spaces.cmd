align --dtype bf16 --dims "d_model = 6000, ffn=21845, 21888"
