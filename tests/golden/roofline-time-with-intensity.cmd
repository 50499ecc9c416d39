roofline --intensity 3 --time 1ms
