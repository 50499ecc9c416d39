roofline --intensity 4 --seq 8
