compare tests/fixtures/compare/base.json tests/fixtures/compare/after.json
