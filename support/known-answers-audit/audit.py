"""Every known-answer test seen failing: for each row of docs/known-answers.md, one or more
breakages of the computation it pins (mutations.toml: a file, an exact text in it, what it
becomes, the tests that must fail), applied one at a time to a copy of the tree, each test run,
and the copy put back. The tests must pass on the unbroken copy first (a test that fails
anyway proves nothing). A breakage whose tests still pass is a test that cannot fail, and the
audit says so and exits 1.

The copy (harness/, tests/, docs/, suites/, support/ and the files the tests read at the top)
lives in a folder of its own, so the working tree is never edited and an interrupted audit
leaves nothing broken; its contenders/ and .concbench-cache/ are links to the real ones
(tools already built, no build in a test).

    support/known-answers-audit/run [--only FIGURE ...] [--mutations FILE]

Prints one line per breakage (caught, or NOT CAUGHT with the tests' summary) and the count.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import tomllib
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
COPIED = ("harness", "tests", "docs", "suites", "support")
LINKED = ("contenders", ".concbench-cache", ".venv")
FILES = ("pytest.ini", "concbench", "requirements.txt")
TEST_TIMEOUT_S = 600


@dataclass(frozen=True)
class Mutation:
    figure: str
    """The row of docs/known-answers.md (its first column, without backticks)."""
    file: str
    old: str
    new: str
    tests: tuple[str, ...]
    how: str
    """The breakage in words (what the commit message would say)."""


def load(path: Path) -> list[Mutation]:
    data = tomllib.loads(path.read_text())
    return [Mutation(m["figure"], m["file"], m["old"], m["new"], tuple(m["tests"]), m["how"])
            for m in data.get("mutation", [])]


def all_mutations() -> list[Mutation]:
    found: list[Mutation] = []
    for path in sorted(HERE.glob("mutations*.toml")):
        found += load(path)
    return found


def _copy_tree(into: Path) -> None:
    for name in COPIED:
        shutil.copytree(ROOT / name, into / name, symlinks=True,
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    for name in FILES:
        shutil.copy2(ROOT / name, into / name)
    for name in LINKED:
        if (ROOT / name).exists():
            (into / name).symlink_to(ROOT / name, target_is_directory=True)


def _pytest(tests: tuple[str, ...], tree: Path) -> tuple[int, str]:
    """pytest's exit code on `tests` in the copy, and its last line."""
    done = subprocess.run(
        [str(ROOT / ".venv" / "bin" / "python"), "-m", "pytest", "-q", "-n", "0",
         "-p", "no:cacheprovider", "-x", *tests],
        cwd=tree, capture_output=True, text=True, timeout=TEST_TIMEOUT_S)
    return done.returncode, (done.stdout.strip().splitlines() or [""])[-1]


def check(m: Mutation, tree: Path, passing: dict[tuple[str, ...], str]) -> tuple[bool, str]:
    """(caught, what pytest said): the tests pass on the copy as it is (once per set of
    tests: a test that fails anyway proves nothing), then fail with `m` applied; the file is
    put back either way."""
    if m.tests not in passing:
        code, said = _pytest(m.tests, tree)
        if code != 0:
            return False, f"the tests fail without the breakage: {said}"
        passing[m.tests] = said
    target = tree / m.file
    original = target.read_text()
    if original.count(m.old) != 1:
        return False, f"the text to break occurs {original.count(m.old)} times in {m.file}"
    target.write_text(original.replace(m.old, m.new))
    try:
        code, said = _pytest(m.tests, tree)
    finally:
        target.write_text(original)
    # 1: tests failed; 2-5: interrupted, internal error, usage, none collected: not a catch
    return code == 1, said


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", action="append", default=[], metavar="FIGURE")
    parser.add_argument("--mutations", type=Path, help="one mutations file, not all of them")
    args = parser.parse_args()
    mutations = load(args.mutations) if args.mutations else all_mutations()
    if args.only:
        mutations = [m for m in mutations if m.figure in args.only]
    if not mutations:
        print("no mutation to run", file=sys.stderr)
        return 2
    missed = 0
    with tempfile.TemporaryDirectory(prefix="concbench-audit-") as folder:
        tree = Path(folder)
        _copy_tree(tree)
        passing: dict[tuple[str, ...], str] = {}
        for m in mutations:
            caught, said = check(m, tree, passing)
            missed += not caught
            verdict = "caught" if caught else "NOT CAUGHT"
            print(f"{verdict:10} {m.figure}: {m.how} ({said})", flush=True)
    print(f"{len(mutations) - missed} of {len(mutations)} breakages caught")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
