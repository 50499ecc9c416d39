roofline --gpu a100-sxm-80gb --dtype fp8 --intensity 10
