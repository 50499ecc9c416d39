plan --model examples/models/llama-3-70b.json --tpot 30ms --ttft 1s --context 4k --gpu h100-sxm,b200 --price h100-sxm=2.5,b200=6 --top 3 --json
