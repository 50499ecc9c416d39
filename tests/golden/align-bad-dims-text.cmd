align --dtype bf16 --dims abc
