report --json
