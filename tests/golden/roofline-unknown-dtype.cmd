roofline --dtype fp12 --intensity 1
