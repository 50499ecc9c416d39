trace tests/fixtures/trace/nsys-schema.sqlite --steps 2 --tokens 2
