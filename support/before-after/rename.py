"""Rewrite a copied manifest: toolchain NAME → NAME-before, keep only contender C as C-before."""

import re
import sys
from pathlib import Path

path, keep = Path(sys.argv[1]), sys.argv[2]
out, skipping, renamed = [], False, False
for line in path.read_text().splitlines():
    header = re.match(r"^\[contenders\.([^].]+)(.*)\]$", line)
    if header:
        skipping = header.group(1) != keep
        if not skipping:
            line = f"[contenders.{keep}-before{header.group(2)}]"
    elif line.startswith("[") :
        skipping = False
    if skipping:
        continue
    if not renamed and re.match(r'^name = "[^"]+"$', line):
        line, renamed = line[:-1] + '-before"', True
    out.append(line)
path.write_text("\n".join(out) + "\n")
