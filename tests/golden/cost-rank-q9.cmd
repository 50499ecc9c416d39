cost rank examples/review-q9-rank.yaml
