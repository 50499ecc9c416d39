eval examples/decode-launch-overhead.yaml
