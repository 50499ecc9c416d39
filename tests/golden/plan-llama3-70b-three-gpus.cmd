plan --model examples/models/llama-3-70b.json --tpot 50ms --ttft 2s --context 8k --gpu h100-sxm,h200-sxm,mi300x --weight-dtype bf16,fp8
