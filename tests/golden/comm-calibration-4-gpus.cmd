comm --calibration tests/fixtures/h200-comm-calibration.yaml --gpus 4 --op all-reduce --bytes 64MiB
