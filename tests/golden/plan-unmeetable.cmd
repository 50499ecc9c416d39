plan --model examples/models/llama-3-70b.json --tpot 2ms --ttft 2s --context 8k --gpu h100-sxm,mi300x --top 3
