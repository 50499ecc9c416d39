report --gpu mi300x --json
