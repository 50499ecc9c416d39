eval examples/alignment-seed.yaml
