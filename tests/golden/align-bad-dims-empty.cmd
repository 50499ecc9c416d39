align --dtype bf16 --dims 6000,,8
