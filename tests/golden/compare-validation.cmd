compare validation/h200-validation.json validation/h200-validation.json
