roofline --level l2 --flops 1e12 --bytes 1e9
