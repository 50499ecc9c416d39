roofline --flops 0 --bytes 1e9
