roofline --flops 137.4G --bytes 100.7MB --time 200us --json
