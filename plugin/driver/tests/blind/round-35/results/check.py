#!/usr/bin/env python3
"""Consistency check of blind round 35 (run from anywhere, after the release build):

    python3 round-35/results/check.py [--ptx PATH]

Checks that
- the entry names in the sources (`src/*.rs`: `fn r35_…` and the names handed to kernel-making
  macros, `ring_kernel! { … r35_…: … }`), the `.entry` names in the PTX and the `[[kernel]]`
  names of `expected.toml` are the same set, with no duplicates in any of them, at least 48;
- every module declared in `lib.rs` has a `# ---- module <name> ----` section, its kernels are
  named `r35_<module>_…` and sit under it, with at least 4 correct and 4 broken ones;
- each `[[kernel]]` table has exactly the keys name/class/expect/hazard/rules/why, with
  class correct → expect "accept", hazard "none", rules []; class broken → expect "reject",
  hazard one of hang/fault/wrong-result/race, rules non-empty, name holding `_bad_`; correct
  names hold no `_bad_`; `why` is a non-empty string;
- every rule named is a "### `rule`" heading of MODEL.md;
- every entry's PTX holds the pipeline instructions: mbarrier.init, cp.async.bulk,
  mbarrier.arrive.expect_tx, a consumer release (mbarrier.arrive without expect_tx) and
  mbarrier.try_wait.
Exit status 0 when everything holds, 1 otherwise.
"""
import re
import sys
import tomllib
from pathlib import Path

ROUND = Path(__file__).resolve().parent.parent
MODEL = ROUND.parent / "MODEL.md"
PTX = Path("/tmp/r35-target/nvptx64-nvidia-cuda/release/verifier_corpus.ptx")
if "--ptx" in sys.argv:
    PTX = Path(sys.argv[sys.argv.index("--ptx") + 1])

KEYS = {"name", "class", "expect", "hazard", "rules", "why"}
HAZARDS = {"hang", "fault", "wrong-result", "race"}
problems = []


def problem(text):
    problems.append(text)


def duplicates(names):
    seen, dups = set(), set()
    for n in names:
        (dups if n in seen else seen).add(n)
    return dups


# Modules declared in lib.rs (the device API excepted).
lib = (ROUND / "src" / "lib.rs").read_text()
modules = [m for m in re.findall(r"(?m)^pub mod (\w+);", lib) if m != "device"]

# Entry names in the sources.
source_names = []
for module in modules:
    text = (ROUND / "src" / f"{module}.rs").read_text()
    # Strip comments so that names mentioned in docs do not count.
    code = re.sub(r"(?m)//.*$", "", text)
    found = re.findall(r"\bfn\s+(r35_\w+)\s*\(", code)
    found += re.findall(r"(?m)^\s*(r35_\w+)\s*:\s*stages\s*=", code)  # ring_kernel! invocations
    for name in found:
        if not name.startswith(f"r35_{module}_"):
            problem(f"source: {name} is in module {module} but not named r35_{module}_…")
    source_names += found

# Entry names in the PTX, with each entry's body.
ptx = PTX.read_text()
bodies = {}
ptx_names = []
for part in re.split(r"(?m)^\.visible \.entry ", ptx)[1:]:
    name = part.split("(")[0].strip()
    if name.startswith("r35_"):
        ptx_names.append(name)
        bodies[name] = part

# expected.toml.
expected_text = (ROUND / "expected.toml").read_text()
expected = tomllib.loads(expected_text)
tables = expected.get("kernel", [])
toml_names = [t.get("name") for t in tables]

# MODEL.md rule headings.
rules = set(re.findall(r"(?m)^### `([^`]+)`", MODEL.read_text()))

for label, names in (("sources", source_names), ("PTX", ptx_names), ("expected.toml", toml_names)):
    d = duplicates(names)
    if d:
        problem(f"{label}: duplicate names {sorted(d)}")
    if len(set(names)) < 48:
        problem(f"{label}: only {len(set(names))} names (at least 48 wanted)")
sets = {"sources": set(source_names), "PTX": set(ptx_names), "expected.toml": set(toml_names)}
for a in sets:
    for b in sets:
        if a < b:
            for n in sorted(sets[a] - sets[b]):
                problem(f"{n} is in {a} but not in {b}")
            for n in sorted(sets[b] - sets[a]):
                problem(f"{n} is in {b} but not in {a}")

# Tables.
for t in tables:
    name = t.get("name", "?")
    keys = set(t)
    if keys != KEYS:
        problem(f"{name}: keys {sorted(keys)} (want {sorted(KEYS)})")
        continue
    if not isinstance(t["why"], str) or not t["why"].strip():
        problem(f"{name}: empty why")
    if not isinstance(t["rules"], list) or not all(isinstance(r, str) for r in t["rules"]):
        problem(f"{name}: rules is not a list of strings")
        continue
    if t["class"] == "correct":
        if t["expect"] != "accept" or t["hazard"] != "none" or t["rules"] != []:
            problem(f"{name}: correct kernel needs expect=accept, hazard=none, rules=[]")
        if "_bad_" in name:
            problem(f"{name}: correct kernel named _bad_")
    elif t["class"] == "broken":
        if t["expect"] != "reject":
            problem(f"{name}: broken kernel needs expect=reject")
        if t["hazard"] not in HAZARDS:
            problem(f"{name}: hazard {t['hazard']!r} not one of {sorted(HAZARDS)}")
        if not t["rules"]:
            problem(f"{name}: broken kernel names no rule")
        if "_bad_" not in name:
            problem(f"{name}: broken kernel not named _bad_")
    else:
        problem(f"{name}: class {t['class']!r}")
    for r in t["rules"]:
        if r not in rules:
            problem(f"{name}: rule {r!r} is not a ### heading of MODEL.md")

# Module sections of expected.toml: each table under its module's comment.
section = None
table_section = {}
for line in expected_text.splitlines():
    m = re.match(r"# ---- module (\w+) ----", line)
    if m:
        section = m.group(1)
    m = re.match(r'name = "(r35_\w+)"', line)
    if m:
        table_section[m.group(1)] = section
counts = {}
for t in tables:
    name = t.get("name", "?")
    sec = table_section.get(name)
    if sec not in modules:
        problem(f"{name}: under section {sec!r}, not a module of lib.rs")
    elif not name.startswith(f"r35_{sec}_"):
        problem(f"{name}: under section {sec} but named for another module")
    counts.setdefault(sec, {"correct": 0, "broken": 0})
    if t.get("class") in ("correct", "broken"):
        counts[sec][t["class"]] += 1
for module in modules:
    c = counts.get(module, {"correct": 0, "broken": 0})
    if c["correct"] < 4 or c["broken"] < 4:
        problem(f"module {module}: {c['correct']} correct and {c['broken']} broken (4 + 4 wanted)")

# Pipeline instructions in every entry.
NEEDED = {
    "mbarrier.init": r"mbarrier\.init",
    "cp.async.bulk": r"cp\.async\.bulk\.shared",
    "expect_tx": r"mbarrier\.arrive\.expect_tx",
    "release": r"mbarrier\.arrive\.shared::cta\.b64 _, \[",
    "try_wait": r"mbarrier\.try_wait\.parity",
}
for name, body in bodies.items():
    for what, pattern in NEEDED.items():
        if not re.search(pattern, body):
            problem(f"{name}: PTX lacks {what}")

# Summary.
hazards = {}
for t in tables:
    if t.get("class") == "broken":
        hazards[t["hazard"]] = hazards.get(t["hazard"], 0) + 1
named = {}
for t in tables:
    for r in t.get("rules", []):
        named[r] = named.get(r, 0) + 1
print(f"modules: {', '.join(modules)}")
print(f"entries: sources {len(source_names)}, PTX {len(ptx_names)}, expected.toml {len(toml_names)}")
for module in modules:
    c = counts.get(module, {})
    print(f"  {module}: {c.get('correct', 0)} correct, {c.get('broken', 0)} broken")
print("broken by predicted hazard: " + ", ".join(f"{h} {n}" for h, n in sorted(hazards.items())))
print("rules named: " + ", ".join(f"{r} {n}" for r, n in sorted(named.items())))
if problems:
    print(f"FAILED: {len(problems)} problem(s)")
    for p in problems:
        print("  - " + p)
    sys.exit(1)
print("OK: names agree, tables well-formed, rules are MODEL.md headings, pipeline instructions present")
