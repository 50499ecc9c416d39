roofline --kernel softmax --m 8192 --n 8192 --passes 3 --dtype fp8
