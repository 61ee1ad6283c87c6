#!/usr/bin/env python3
"""Checks src/'s layering: a file includes only from its own layer or the layers below it
(api -> engine -> families -> formats -> device -> runtime), no family includes another family,
every family folder has family.cpp, plan/ and kernels/, only the overrides reader and the logger
read the environment, and no source file is longer than 600 lines. Exit 1 with one line per
violation."""
import os
import re
import sys

ORDER = ["api", "engine", "families", "formats", "device", "runtime"]
# The CPU reference is not part of the library: it may use the runtime's element types only.
EXTRA = {"reference": ["reference", "runtime"]}
MAX_LINES = 600
SOURCE = re.compile(r"\.(c|h|cpp|hpp|cu|cuh)$")

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src")
problems = []


def allowed(src_layer, inc_layer):
    if src_layer in EXTRA:
        return inc_layer in EXTRA[src_layer]
    if src_layer not in ORDER or inc_layer not in ORDER:
        return False
    return ORDER.index(inc_layer) >= ORDER.index(src_layer)


for dirpath, _, files in os.walk(root):
    for name in files:
        path = os.path.join(dirpath, name)
        rel = os.path.relpath(path, root)
        if not SOURCE.search(name):
            continue
        parts = rel.split(os.sep)
        layer = parts[0]
        text = open(path, encoding="utf-8").read()
        lines = text.count("\n")
        if lines > MAX_LINES:
            problems.append(f"{rel}: {lines} lines (more than {MAX_LINES})")
        if "getenv" in text and rel not in ("engine/overrides.cpp", "runtime/log.cpp"):
            problems.append(f"{rel}: reads the environment (only engine/overrides.cpp may)")
        for inc in re.findall(r'^\s*#\s*include\s+"([^"]+)"', text, re.M):
            if inc.startswith("spx/") or "/" not in inc:
                continue
            inc_parts = inc.split("/")
            if not allowed(layer, inc_parts[0]):
                problems.append(f"{rel}: includes {inc} from a layer above")
            elif (layer == "families" and inc_parts[0] == "families" and len(parts) > 2
                  and len(inc_parts) > 2 and parts[1] != inc_parts[1]):
                problems.append(f"{rel}: family {parts[1]} includes family {inc_parts[1]}")

fam_root = os.path.join(root, "families")
for fam in sorted(os.listdir(fam_root)):
    d = os.path.join(fam_root, fam)
    if not os.path.isdir(d):
        continue
    for need in ("family.cpp", "plan", "kernels", "README.md"):
        if not os.path.exists(os.path.join(d, need)):
            problems.append(f"families/{fam}: no {need}")

for p in problems:
    print(p)
print(f"layers: {len(problems)} problem(s)")
sys.exit(1 if problems else 0)
