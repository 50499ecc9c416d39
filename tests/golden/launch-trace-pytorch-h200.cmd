launch --trace tests/fixtures/trace/pytorch-h200-decode.json --steps 8 --layers 4 --gpu h200-sxm
