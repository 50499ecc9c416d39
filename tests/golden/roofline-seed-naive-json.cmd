roofline --gpu h100-sxm --dtype bf16 --flops 137438953472 --bytes 549755813888 --json
