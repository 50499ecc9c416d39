roofline --dtype fp8 --sparse --intensity 2000 --json
