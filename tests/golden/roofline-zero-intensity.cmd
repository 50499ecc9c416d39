roofline --intensity 0
