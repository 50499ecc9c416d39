roofline --gpu h100 --intensity 1
