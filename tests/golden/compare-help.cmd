compare --help
