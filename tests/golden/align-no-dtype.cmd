align --dims 8192
