roofline --kernel softmax --n 8 --k 5
