comm --calibration tests/fixtures/h200-comm-calibration.yaml --gpus 8 --op all-reduce --bytes 64MiB
