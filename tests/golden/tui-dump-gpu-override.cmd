tui --dump examples/worked-example-7-1.yaml --gpu mi300x
