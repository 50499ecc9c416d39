launch --help
