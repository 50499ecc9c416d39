hw list --json
