roofline --dtype bf16 --no-tensor --intensity 20
