roofline --flops 1e9 --bytes inf
