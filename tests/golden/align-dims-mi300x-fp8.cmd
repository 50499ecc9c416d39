align --dtype fp8 --dims 6000,21845,21888 --gpu mi300x
