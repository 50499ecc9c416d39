roofline --kernel softmax --n 8 --sparse
