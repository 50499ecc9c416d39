align --dtype bf16 --dims K=8192,K=8191,K=8184 --json
