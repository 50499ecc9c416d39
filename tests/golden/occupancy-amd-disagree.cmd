occupancy --gpu mi300x --threads 64 --vgprs 32 --sgprs 100 --lds 13000
