align --dtype bf16 --dims 21888 --tokens 1000 --tile 256x128 --ctas-per-sm 2
