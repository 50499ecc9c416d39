trace --help
