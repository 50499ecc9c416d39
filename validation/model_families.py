#!/usr/bin/env python3
"""Checks ridge's reading of the model-config fixtures against their
published figures (tests/fixtures/model-configs/expected.tsv).

For each row: expect 'read' -> `ridge model FILE --json` exits 0, its total
parameters (with the vision tower when the config has one) are within the
published figure's tolerance, and so is the active count the card uses
(with the input table: active; without it: active_without_embedding;
'unknown': the nearer of the two, reported); expect 'refuse' -> exit 2 with
'is not modelled' in the message. The tolerance is 0.1 %, or half a unit in
the last digit the figure is published with when that is wider (a card's
"8.03B" says 8.025-8.035B, no more). Prints one line a fixture and exits 1
on any failure.

usage: validation/model_families.py RIDGE [FIXTURE_DIR]
"""
import json
import os
import subprocess
import sys


def within(value, text):
    """Whether value matches a published figure written as '8.03e9': within
    0.1 %, or inside the range the figure's last digit allows when that is
    wider -- from half a unit below (rounded) to one unit above (cards
    truncate too: Qwen3-30B-A3B's 3.35B active is published as "3.3B",
    Llama 3.1's 405.85B as "405B"). Returns (ok, relative error, range)."""
    mantissa, _, exponent = text.lower().partition('e')
    scale = 10 ** int(exponent or 0)
    digits = mantissa.split('.')[1] if '.' in mantissa else ''
    unit = 10 ** -len(digits) * scale
    published = float(mantissa) * scale
    lo, hi = min(published * 0.999, published - unit / 2), max(published * 1.001, published + unit)
    return lo <= value < hi, value / published - 1, (lo, hi)


def main():
    ridge = sys.argv[1]
    folder = sys.argv[2] if len(sys.argv) > 2 else 'tests/fixtures/model-configs'
    rows = [line.rstrip('\n').split('\t') for line in open(os.path.join(folder, 'expected.tsv'))]
    head, rows = rows[0], rows[1:]
    col = {name: i for i, name in enumerate(head)}
    failed = 0
    for row in rows:
        get = lambda name: row[col[name]] if col[name] < len(row) else ''
        path = os.path.join(folder, get('file'))
        run = subprocess.run([ridge, 'model', path, '--json'], capture_output=True, text=True, timeout=30)
        name = get('file')
        if get('expect') == 'refuse':
            ok = run.returncode == 2 and 'is not modelled' in run.stderr
            print(f"{'ok  ' if ok else 'FAIL'} {name}: refused" + ('' if ok else f" (exit {run.returncode})"))
            failed += not ok
            continue
        if run.returncode != 0:
            print(f"FAIL {name}: exit {run.returncode}: {run.stderr.strip()[:200]}")
            failed += 1
            continue
        params = json.loads(run.stdout)['params']
        total = params.get('total_with_vision_tower', params['total'])
        ok = True
        line = f"{name}: total {total / 1e9:.4f}B"
        if get('total_params'):
            ok, err, (lo, hi) = within(total, get('total_params'))
            line += f" vs {get('total_params')} ({err:+.3%}; {lo / 1e9:.4g}-{hi / 1e9:.4g}B)"
        else:
            line += " (no published figure this fixture can be held to: see its notes)"
        if get('active_params'):
            counts = get('active_counts_embedding')
            candidates = {'yes': ['active'], 'no': ['active_without_embedding']}.get(
                counts, ['active', 'active_without_embedding'])
            best = min(candidates, key=lambda k: abs(within(params[k], get('active_params'))[1]))
            a_ok, aerr, _ = within(params[best], get('active_params'))
            line += f"; {best} {params[best] / 1e9:.4f}B vs {get('active_params')} ({aerr:+.3%})"
            if counts in ('yes', 'no'):
                ok = ok and a_ok
            else:
                line += " (the card does not say whether it counts the input table: not held)"
        print(f"{'ok  ' if ok else 'FAIL'} {line}")
        failed += not ok
    print(f"{len(rows) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
