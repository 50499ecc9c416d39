model tests/data/model/unknown-arch.json
