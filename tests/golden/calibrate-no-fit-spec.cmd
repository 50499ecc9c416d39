calibrate --timings measurements/2026-12-01-h200-heldout/timings.json --gpu h200-sxm --no-fit
