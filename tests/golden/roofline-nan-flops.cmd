roofline --flops nan --bytes 1e9
