hw check tests/fixtures/hwdb/broken-h100.yaml
