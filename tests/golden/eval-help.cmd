eval --help
