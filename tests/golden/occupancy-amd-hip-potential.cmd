occupancy --gpu mi300x --threads 256 --vgprs 96
