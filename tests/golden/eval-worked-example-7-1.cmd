eval examples/worked-example-7-1.yaml
