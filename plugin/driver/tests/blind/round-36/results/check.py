#!/usr/bin/env python3
"""Round 36 consistency check: sources, PTX and expected.toml name the same kernels."""
import re, sys, pathlib, tomllib

ROOT = pathlib.Path(__file__).resolve().parent.parent
PTX = pathlib.Path('/tmp/r36-target/nvptx64-nvidia-cuda/release/verifier_corpus.ptx')
MODEL = ROOT.parent / 'MODEL.md'
errors = []

# Entry names in the sources: macro invocations `xxx_kernel!(r36_...` and `fn r36_...`.
src = {}
for f in sorted((ROOT / 'src').glob('*.rs')):
    text = f.read_text()
    names = re.findall(r'^\w+_kernel!\((r36_\w+)', text, re.M) + re.findall(r'extern "ptx-kernel" fn (r36_\w+)', text)
    for n in names:
        src.setdefault(n, []).append(f.name)
src_names = [n for n, fs in src.items() for _ in fs]
ptx_text = PTX.read_text()
ptx_names = re.findall(r'\.entry (r36_\w+)', ptx_text)
exp = tomllib.loads((ROOT / 'expected.toml').read_text())
tables = exp['kernel']
exp_names = [t.get('name') for t in tables]

for label, names in (('sources', src_names), ('ptx', ptx_names), ('expected.toml', exp_names)):
    dups = sorted({n for n in names if names.count(n) > 1})
    if dups:
        errors.append(f'{label}: duplicates {dups}')
if not (set(src_names) == set(ptx_names) == set(exp_names)):
    errors.append(f'name sets differ: src-ptx {set(src_names) ^ set(ptx_names)}, src-expected {set(src_names) ^ set(exp_names)}')

# Each PTX entry keeps its pipeline instructions.
starts = [m.start() for m in re.finditer(r'\.entry r36_', ptx_text)] + [len(ptx_text)]
for i, n in enumerate(ptx_names):
    body = ptx_text[starts[i]:starts[i + 1]]
    for ins in ('cp.async.bulk', 'mbarrier.try_wait', 'mbarrier.arrive', 'mbarrier.arrive.expect_tx'):
        if ins not in body:
            errors.append(f'{n}: no {ins} in its PTX')

rules = set(re.findall(r'^### `([^`]+)`', MODEL.read_text(), re.M))
KEYS = {'name', 'class', 'expect', 'hazard', 'rules', 'why'}
for t in tables:
    n = t.get('name')
    if set(t) != KEYS:
        errors.append(f'{n}: keys {sorted(t)}')
        continue
    broken = '_bad_' in n
    if t['class'] != ('broken' if broken else 'correct'):
        errors.append(f'{n}: class {t["class"]}')
    if broken:
        if t['expect'] != 'reject' or t['hazard'] not in ('hang', 'fault', 'wrong-result', 'race') or not t['rules']:
            errors.append(f'{n}: broken values wrong')
    else:
        if t['expect'] != 'accept' or t['hazard'] != 'none' or t['rules'] != []:
            errors.append(f'{n}: correct values wrong')
    for r in t['rules']:
        if r not in rules:
            errors.append(f'{n}: rule {r!r} is no MODEL.md heading')
    if not isinstance(t['why'], str) or not t['why'].strip():
        errors.append(f'{n}: empty why')

# Per module: 4 correct + 4 broken.
mods = {}
for t in tables:
    m = t['name'].split('_')[1]
    mods.setdefault(m, [0, 0])[0 if t['class'] == 'correct' else 1] += 1
for m, (c, b) in mods.items():
    if (c, b) != (4, 4):
        errors.append(f'module {m}: {c} correct, {b} broken')

print(f'sources {len(src_names)}, ptx {len(ptx_names)}, expected {len(exp_names)}; modules {mods}')
for e in errors:
    print('ERROR', e)
print('OK' if not errors else f'{len(errors)} errors')
sys.exit(1 if errors else 0)
