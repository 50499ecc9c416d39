roofline --gpu h100-sxm --dtype bf16 --intensity 295 --json
