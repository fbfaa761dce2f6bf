#!/usr/bin/env python3
"""Consistency check of blind round 52: sources, PTX, expected.toml and MODEL.md agree.

Run from anywhere: `python3 results/check.py [PTX]` (default PTX path:
/tmp/r52-target/nvptx64-nvidia-cuda/release/verifier_corpus.ptx). Prints OK or the problems.
"""
import re
import sys
import tomllib
from collections import Counter
from pathlib import Path

ROUND = Path(__file__).resolve().parent.parent
MODEL = ROUND.parent / "MODEL.md"
PTX = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(
    "/tmp/r52-target/nvptx64-nvidia-cuda/release/verifier_corpus.ptx")
HAZARDS = {"hang", "fault", "wrong-result", "race"}
KEYS = {"name", "class", "expect", "hazard", "rules", "why"}
PER_MODULE = {"correct": 4, "broken": 4}

problems = []


def problem(msg):
    problems.append(msg)


# --- sources: entry names per module -------------------------------------------------------
lib = (ROUND / "src" / "lib.rs").read_text()
modules = re.findall(r"^pub mod (\w+);", lib, re.M)
modules = [m for m in modules if m != "device"]
entry_re = re.compile(
    r'#\[unsafe\(no_mangle\)\]\s*pub\s+unsafe\s+extern\s+"ptx-kernel"\s+fn\s+(\w+)\s*\(([^)]*)\)')
source_names = []
module_of = {}
for m in modules:
    path = ROUND / "src" / f"{m}.rs"
    if not path.exists():
        problem(f"module {m} declared in lib.rs but src/{m}.rs is missing")
        continue
    text = path.read_text()
    for name, params in entry_re.findall(text):
        source_names.append(name)
        module_of[name] = m
        if not name.startswith(f"r52_{m}_"):
            problem(f"{name}: entry of module {m} without the prefix r52_{m}_")
        flat = " ".join(params.split())
        if not re.fullmatch(r"input: \*const f32, tiles: u32, out: \*mut f32,?", flat):
            problem(f"{name}: signature is not (input: *const f32, tiles: u32, out: *mut f32): {flat}")
    # any ptx-kernel fn not caught by the regex (e.g. missing no_mangle)
    n_kernels = len(re.findall(r'extern\s+"ptx-kernel"\s+fn', text))
    n_found = sum(1 for n in module_of if module_of[n] == m)
    if n_kernels != n_found:
        problem(f"src/{m}.rs: {n_kernels} ptx-kernel fns but {n_found} with #[unsafe(no_mangle)]")
for name, n in Counter(source_names).items():
    if n > 1:
        problem(f"{name}: defined {n} times in the sources")

# --- PTX -----------------------------------------------------------------------------------
if not PTX.exists():
    problem(f"PTX not found at {PTX} (build first)")
    ptx_names = []
else:
    ptx_names = re.findall(r"^\.visible \.entry (\w+)\(", PTX.read_text(), re.M)
for name, n in Counter(ptx_names).items():
    if n > 1:
        problem(f"{name}: {n} entries in the PTX")

# --- MODEL.md rule headings ----------------------------------------------------------------
model = MODEL.read_text()
rules_section = model.split("## The rules", 1)[1].split("\n## ", 1)[0]
rule_names = set(re.findall(r"^### `([a-z0-9-]+)`", rules_section, re.M))
if not rule_names:
    problem("no rule headings found in MODEL.md")

# --- expected.toml -------------------------------------------------------------------------
expected = tomllib.loads((ROUND / "expected.toml").read_text())
contract = expected.get("contract", {})
want_contract = {"block_threads": 64, "grid_blocks": 8, "tiles": 64, "shared_bytes": 8192,
                 "tile_floats": 256, "consumers": 32}
for k, v in want_contract.items():
    if contract.get(k) != v:
        problem(f"[contract] {k} = {contract.get(k)!r}, expected {v!r}")
tables = expected.get("kernel", [])
toml_names = []
classes = {}
for i, t in enumerate(tables):
    name = t.get("name", f"<table {i}>")
    toml_names.append(name)
    keys = set(t)
    if keys != KEYS:
        problem(f"{name}: keys {sorted(keys)}, expected {sorted(KEYS)}")
        continue
    cls = t["class"]
    classes[name] = cls
    if not isinstance(t["why"], str) or len(t["why"].strip()) < 10:
        problem(f"{name}: `why` missing or too short")
    if not isinstance(t["rules"], list) or not all(isinstance(r, str) for r in t["rules"]):
        problem(f"{name}: `rules` is not a list of strings")
        continue
    for r in t["rules"]:
        if r not in rule_names:
            problem(f"{name}: rule {r!r} is not a MODEL.md rule heading")
    if cls == "correct":
        if t["expect"] != "accept" or t["hazard"] != "none" or t["rules"] != []:
            problem(f"{name}: correct kernel needs expect=accept, hazard=none, rules=[]")
        if "_bad_" in name:
            problem(f"{name}: correct kernel named _bad_")
    elif cls == "broken":
        if t["expect"] != "reject":
            problem(f"{name}: broken kernel needs expect=reject")
        if t["hazard"] not in HAZARDS:
            problem(f"{name}: hazard {t['hazard']!r} not one of {sorted(HAZARDS)}")
        if not t["rules"]:
            problem(f"{name}: broken kernel names no rule")
        if "_bad_" in name:
            problem(f"{name}: broken kernel named _bad_ (the round's brief forbids names that give a defect away)")
    else:
        problem(f"{name}: class {cls!r}")
for name, n in Counter(toml_names).items():
    if n > 1:
        problem(f"{name}: {n} tables in expected.toml")

# --- the three sets agree ------------------------------------------------------------------
src_set, ptx_set, toml_set = set(source_names), set(ptx_names), set(toml_names)
for name in sorted(src_set - ptx_set):
    problem(f"{name}: in the sources, not in the PTX")
for name in sorted(ptx_set - src_set):
    problem(f"{name}: in the PTX, not in the sources")
for name in sorted(src_set - toml_set):
    problem(f"{name}: in the sources, not in expected.toml")
for name in sorted(toml_set - src_set):
    problem(f"{name}: in expected.toml, not in the sources")

# --- 4 correct + 4 broken per module -------------------------------------------------------
for m in modules:
    counts = Counter(classes.get(n) for n in source_names if module_of.get(n) == m)
    for cls, want in PER_MODULE.items():
        if counts.get(cls, 0) != want:
            problem(f"module {m}: {counts.get(cls, 0)} {cls} kernels, expected {want}")
# each file's correct kernels carry no BROKEN doc line, and each broken one does
for m in modules:
    text = (ROUND / "src" / f"{m}.rs").read_text()
    for doc, name in re.findall(r"((?:^///[^\n]*\n)+)#\[unsafe\(no_mangle\)\]\s*pub\s+unsafe\s+extern\s+\"ptx-kernel\"\s+fn\s+(\w+)", text, re.M):
        says_broken = "BROKEN" in doc
        if classes.get(name) == "broken" and says_broken:
            problem(f"{name}: broken in expected.toml, its doc says BROKEN (the round's brief forbids marking defects)")
        if classes.get(name) == "correct" and says_broken:
            problem(f"{name}: correct in expected.toml, its doc says BROKEN")

if problems:
    for p in problems:
        print("PROBLEM:", p)
    sys.exit(1)
print(f"OK: {len(modules)} modules ({', '.join(modules)}), {len(src_set)} kernels "
      f"({sum(1 for c in classes.values() if c == 'correct')} correct, "
      f"{sum(1 for c in classes.values() if c == 'broken')} broken), "
      f"rules from MODEL.md: {len(rule_names)}")
