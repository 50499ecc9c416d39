occupancy --threads 256 --regs 64 --smem 48KiB --calibration validation/h200-calibration.yaml
