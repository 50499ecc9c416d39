roofline --kernel softmax --n 8 --passes 4
