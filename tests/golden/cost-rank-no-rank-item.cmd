cost rank examples/review-q5-graphs.yaml
