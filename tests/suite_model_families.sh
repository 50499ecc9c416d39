#!/bin/sh
# Model configs read right or refused (issue 28): every fixture in
# tests/fixtures/model-configs/ against its published figures
# (validation/model_families.py: total and active parameters within the
# published figure's precision, or refused naming the reason); the layer
# plan, the checkpoint's storage and the nesting of the families that have
# them; docs/models/families.md is `ridge model --families`.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
RIDGE=${RIDGE:-build/ridge}
passed=0
failed=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass() { passed=$((passed + 1)); }
fail() {
	echo "FAIL $*"
	failed=$((failed + 1))
}
D=tests/fixtures/model-configs

if command -v python3 >/dev/null 2>&1; then
	if python3 validation/model_families.py "$RIDGE" "$D" >"$tmp/families.out" 2>&1; then
		pass
	else
		grep '^FAIL' "$tmp/families.out" | sed 's/^FAIL /FAIL families: /'
		failed=$((failed + 1))
	fi
else
	echo "SKIP published figures: python3 not installed"
fi

# key=value checks on `ridge model --json` (jq-free: the JSON is printed one key a line)
expect() { # file pattern what
	if "$RIDGE" model "$D/$1" --json 2>/dev/null | tr -d ' \t\n' | grep -q -- "$2"; then pass; else fail "$1: $3"; fi
}
expect google--gemma-2-9b.json '"global_layers":21,"local_layers":21,"window":4096' "Gemma 2: 21 local + 21 global"
expect google--gemma-3-12b-it.json '"global_layers":8,"local_layers":40,"window":1024' "Gemma 3: every 6th layer global"
expect google--gemma-3-12b-it.json '"head_dim":256' "Gemma 3: head_dim 256 from Gemma3TextConfig, not hidden / heads"
expect google--gemma-3-12b-it.json '"wrapper_model_type":"gemma3"' "Gemma 3: the language model of the wrapper"
expect openai--gpt-oss-120b.json '"global_layers":18,"local_layers":18,"window":128' "gpt-oss: layer_types"
expect openai--gpt-oss-120b.json '"experts":"mxfp4(e8m0scale/32)"' "gpt-oss: MXFP4 experts"
expect meta-llama--Llama-4-Scout-17B-16E-Instruct.json '"global_layers":12,"local_layers":36,"window":8192,"chunked":true' "Llama 4: chunked on RoPE layers"
expect deepseek-ai--DeepSeek-V3.json '"dense":"fp8(fp32scale/16384)"' "DeepSeek-V3: fp8 block scales"
expect Qwen--Qwen2-7B-Instruct.json '"global_layers":28,"local_layers":0' "Qwen2: use_sliding_window false"
expect Qwen--Qwen3-32B-AWQ.json '"dense":"int4(AWQ,group128)"' "AWQ int4"

# gpt-oss-120b on one H100 at 131k context x 32: the cache is what the plan
# makes it (18 layers x 131072 + 18 x 128 tokens x 2 KiB, x 32 = 154.8 GB),
# the checkpoint MXFP4 (60.7 GiB), not bf16 (217.5 GiB)
out=$("$RIDGE" cost decode --model $D/openai--gpt-oss-120b.json --gpu h100-sxm --gpus 1 --batch 32 --context 131072 2>/dev/null)
case $out in *"KV read 154.8 GB"*) pass ;; *) fail "gpt-oss-120b: KV read is not 154.8 GB: $(echo "$out" | sed -n 3p)" ;; esac
case $out in *"weights fp4"*) pass ;; *) fail "gpt-oss-120b: weights not priced as the checkpoint's fp4" ;; esac
# Gemma 2 at 8k x 32: 67.65 GB of cache read (the issue's figure), not 45.1 (all local) or 90.2 (all global)
out=$("$RIDGE" cost decode --model $D/google--gemma-2-9b.json --gpu h100-sxm --gpus 1 --batch 32 --context 8192 2>/dev/null)
case $out in *"KV read 67.65 GB"*) pass ;; *) fail "gemma-2-9b: KV read is not 67.65 GB: $(echo "$out" | sed -n 3p)" ;; esac
# --weight-dtype overrides the checkpoint and says so
"$RIDGE" cost decode --model $D/openai--gpt-oss-20b.json --gpu h100-sxm --gpus 1 --batch 1 --context 1024 \
	--weight-dtype bf16 >/dev/null 2>"$tmp/override.err"
if grep -q "overrides the checkpoint" "$tmp/override.err"; then pass; else fail "--weight-dtype over a quantized checkpoint: no warning"; fi
# refused families proceed knowingly with --assume-family, saying so
if "$RIDGE" model $D/ai21labs--Jamba-v0.1.json --assume-family llama >/dev/null 2>"$tmp/assume.err" &&
	grep -q "read as 'llama' (--assume-family)" "$tmp/assume.err"; then pass; else fail "--assume-family llama on Jamba"; fi

# the families table in the docs is the one ridge prints
"$RIDGE" model --families >"$tmp/table.md" 2>&1 || fail "ridge model --families: exit $?"
sed -n '/<!-- families:begin -->/,/<!-- families:end -->/p' docs/models/families.md | sed '1d;$d' >"$tmp/doc.md"
if cmp -s "$tmp/table.md" "$tmp/doc.md"; then pass; else fail "docs/models/families.md: the table differs from 'ridge model --families' (paste it between the markers)"; fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
