launch --trace tests/fixtures/trace/nsys-schema.sqlite --steps 2 --gpu h100-sxm
