roofline --calibration tests/fixtures/roofline/h100-sxm-inner.yaml --flops 137.4G --bytes 100.7MB --l2-bytes 2.18GB --smem-bytes 8GB
