roofline --gpu h100-sxm --intensity 10 --calibration validation/h200-calibration.yaml
