"""A plan that reaches a hanging contender, for the tests that interrupt or kill concbench
mid-plan: fake-good's cell first, then fake-hang, which writes its pid and its child's (the
child ignores SIGTERM) to FAKE_PIDFILE and sleeps."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path
from typing import Callable

PARAMS = ["--param", "tasks=10", "--param", "sleep-ms=10", "--param", "pool-size=10"]


def start_until_hang(bench, pidfile: Path, *options: str, stderr=None,
                     ready: Callable[[subprocess.Popen], bool] = lambda proc: True,
                     ) -> tuple[subprocess.Popen, list[int]]:
    """concbench running the plan (with these run options), returned once fake-hang has
    written both pids and `ready(proc)` holds; the process is killed if that never comes."""
    bench.env["FAKE_PIDFILE"] = str(pidfile)
    proc = subprocess.Popen([sys.executable, "-m", "concbench", "run", "sleep-tasks",
                             "--contender", "fake-good", "--contender", "fake-hang", *PARAMS,
                             "--timeout", "60", *options], env=bench.env,
                            stdout=subprocess.DEVNULL, stderr=stderr or subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while not (pidfile.exists() and len(pidfile.read_text().split()) == 2 and ready(proc)):
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            raise AssertionError("concbench never reached the fake-hang run "
                                 f"(exit {proc.wait()})")
        time.sleep(0.05)
    return proc, [int(p) for p in pidfile.read_text().split()]
