eval examples/review-q5-graphs.yaml
