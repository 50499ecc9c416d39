align --help
