hw show h200-sxm --calibration validation/h200-calibration.yaml
