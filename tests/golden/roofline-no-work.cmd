roofline --dtype bf16
