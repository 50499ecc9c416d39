eval examples/llama3-70b-serving.yaml
