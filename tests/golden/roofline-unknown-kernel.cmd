roofline --kernel matmul --m 8
