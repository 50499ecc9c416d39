roofline --gpu h200-sxm --validation validation/h200-validation.json --group nope
