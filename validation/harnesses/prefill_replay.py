#!/usr/bin/env python3
"""Harness B's prefills (sdpa_decode.py --prefill) replayed through ridge cost prefill.

Usage: python3 validation/harnesses/prefill_replay.py RIDGE MEASUREMENTS_DIR
MEASUREMENTS_DIR holds sdpa_prefill.json and the lease's calibration.yaml. Each case is
`ridge cost prefill --model` on the calibration's entry with --impl cudnn (what PyTorch 2.11's
SDPA ran: the profile's kernel names), --launch graph or eager as measured, and the layer as
sdpa_decode.py writes it: --fused-projections (its fused q/k/v and gate/up weights) and
--layer-ops pytorch (one kernel per torch op, on views; replay.py says which). Nothing was fitted
to these cases. validation/README.md, "Prefill on harness B".
"""
import json, subprocess, tempfile, os, statistics, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import replay  # noqa: E402  (lease_calibration)
ridge, mdir = sys.argv[1], sys.argv[2]
d = json.load(open(os.path.join(mdir, 'sdpa_prefill.json')))
cal = replay.lease_calibration(mdir)
gpu = [l.split(':',1)[1].strip().strip('"') for l in open(cal) if l.startswith('id:')][0]
tmp = tempfile.mkdtemp()
errs = {}
for c in d['cases']:
    p = os.path.join(tmp, c['model'] + '.json'); json.dump(d['configs'][c['model']], open(p, 'w'))
    a = [ridge, 'cost', 'prefill', '--model', p, '--seq', str(c['prompt']), '--batch', str(c['batch']), '--gpus', '1', '--gpu', gpu,
         '--calibration', cal, '--launch', 'graph' if c['mode'] == 'graph' else 'eager', '--impl', 'cudnn', '--json',
         # harness B's layer as its code runs it (replay.py, HARNESS_B_LAYER)
         '--fused-projections', '--layer-ops', 'pytorch']
    o = subprocess.run(a, capture_output=True, text=True)
    if o.returncode: print(o.stderr); continue
    j = json.loads(o.stdout)
    pred = j.get('ttft_s') or j.get('time_s') or j.get('predicted_time_s')
    m = c['median_ms'] * 1e-3
    e = pred / m - 1
    errs.setdefault(c['mode'], []).append(abs(e))
    print(f"{c['model']:18s} B{c['batch']} P{c['prompt']:<5d} {c['mode']:5s} measured {m*1e3:8.2f} ridge {pred*1e3:8.2f} {e*100:+6.1f} %")
for k, v in errs.items(): print(k, len(v), 'median %.1f %% max %.1f %%' % (statistics.median(v)*100, max(v)*100))
