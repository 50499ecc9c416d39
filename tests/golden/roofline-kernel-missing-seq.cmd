roofline --kernel attention --heads 8 --head-dim 64
