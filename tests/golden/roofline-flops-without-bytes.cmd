roofline --flops 1e12
