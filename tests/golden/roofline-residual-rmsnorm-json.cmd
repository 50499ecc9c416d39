roofline --kernel residual-rmsnorm --m 4096 --n 8192 --json
