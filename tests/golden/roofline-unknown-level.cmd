roofline --level l3 --intensity 1
