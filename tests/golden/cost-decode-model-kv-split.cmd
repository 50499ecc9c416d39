cost decode --model examples/models/llama-3-70b.json --context 32768 --batch 32 --gpus 16 --gpu h100-sxm --explain --communication-ms 0
