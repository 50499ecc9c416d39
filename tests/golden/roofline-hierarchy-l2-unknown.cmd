roofline --flops 137.4G --bytes 100.7MB --l2-bytes 2.18GB --json
