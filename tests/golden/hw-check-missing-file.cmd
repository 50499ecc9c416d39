hw check tests/data/no-such-entry.yaml
