compare tests/fixtures/compare/base.json tests/fixtures/compare/no-regression.json
