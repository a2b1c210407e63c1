"""Build step: make the contender's .venv from the newest CPython (>= 3.11) on this machine.

    python3 make_venv.py [--python PATH --venv DIR]

Candidates: python3.N on PATH, the CPythons under pyenv ($PYENV_ROOT or ~/.pyenv, versions/*),
and the interpreter running this script. The newest one that has a pinned requirements file
(requirements-cp3N.txt: every package at one version and the sha256 of its wheel for that
CPython) is used; CONCBENCH_PYTHON=<path> forces one interpreter instead. The venv is made with
--clear and the wheels installed with pip --require-hashes --only-binary=:all:. What was chosen is
printed on stderr; the toolchain's version command records it with every result.

A variant on another CPython (a manifest's toolchain_version) names its interpreter with
--python and its own environment with --venv (a folder here, e.g. .venv-3.13.0), so the
default .venv is left as it is.
"""

from __future__ import annotations

import argparse
import glob
import os
import shutil
import subprocess
import sys
from pathlib import Path

MINIMUM = (3, 11)
HERE = Path(__file__).resolve().parent
PROBE = ("import sys, venv, ensurepip; v = sys.version_info; "
         "print(sys.implementation.name, v.major, v.minor, v.micro, sys.executable)")


def candidates() -> list[str]:
    """Interpreter paths worth probing (duplicates are dropped after probing)."""
    found = [sys.executable]
    for minor in range(MINIMUM[1], 40):
        path = shutil.which(f"python3.{minor}")
        if path:
            found.append(path)
    pyenv_root = os.environ.get("PYENV_ROOT") or str(Path.home() / ".pyenv")
    found += sorted(glob.glob(os.path.join(pyenv_root, "versions", "*", "bin", "python3")))
    return found


def probe(path: str) -> tuple[tuple[int, int, int], str] | None:
    """(version, real executable) of a CPython that can make a venv, else None."""
    try:
        out = subprocess.run([path, "-c", PROBE], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    fields = out.stdout.split()
    if out.returncode != 0 or len(fields) != 5 or fields[0] != "cpython":
        return None
    return (int(fields[1]), int(fields[2]), int(fields[3])), os.path.realpath(fields[4])


def requirements(version: tuple[int, int, int]) -> Path:
    return HERE / f"requirements-cp{version[0]}{version[1]}.txt"


def choose(given: str | None = None) -> tuple[tuple[int, int, int], str]:
    """The interpreter to build with (`given`, else CONCBENCH_PYTHON, else the newest with
    pinned wheels); exits with a message when there is none."""
    forced = given or os.environ.get("CONCBENCH_PYTHON")
    if forced:
        found = probe(forced)
        if found is None or found[0] < MINIMUM or not requirements(found[0]).exists():
            sys.exit(f"make_venv: {forced}: not a CPython >= 3.11 with venv and a pinned "
                     f"requirements-cp3N.txt here")
        return found
    usable = {}
    for path in candidates():
        found = probe(path)
        if found and found[0] >= MINIMUM:
            usable[found[1]] = found[0]
    pinned = [(v, exe) for exe, v in usable.items() if requirements(v).exists()]
    for exe, v in sorted(usable.items(), key=lambda item: item[1]):
        if not requirements(v).exists():
            print(f"make_venv: skipping {exe} ({'.'.join(map(str, v))}): no "
                  f"{requirements(v).name} with pinned wheels", file=sys.stderr)
    if not pinned:
        sys.exit("make_venv: no CPython >= 3.11 with venv found (install python3-venv)")
    return max(pinned)


def main() -> None:
    parser = argparse.ArgumentParser(description="make the contender's virtual environment")
    parser.add_argument("--python", help="this interpreter instead of the newest found")
    parser.add_argument("--venv", default=".venv", help="its folder, relative to this one")
    args = parser.parse_args()
    version, exe = choose(args.python)
    reqs = requirements(version)
    venv = HERE / args.venv
    print(f"make_venv: CPython {'.'.join(map(str, version))} at {exe}, {reqs.name}, "
          f"{venv.name}", file=sys.stderr)
    subprocess.run([exe, "-m", "venv", "--clear", str(venv)], check=True)
    subprocess.run([str(venv / "bin/python"), "-m", "pip", "install", "--disable-pip-version-check",
                    "--no-input", "--only-binary=:all:", "--require-hashes", "-r", str(reqs)],
                   check=True)


if __name__ == "__main__":
    main()
