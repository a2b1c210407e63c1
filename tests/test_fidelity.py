"""Measurement fidelity: the peak RSS the executor reports agrees with /usr/bin/time -v.

Both read the same kernel counters by different routes (the executor corrects for the
RSS a child inherits from the forking Python process), so they must agree within 3%.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from concbench.batch.executor import execute

pytestmark = pytest.mark.usefixtures("processes")  # real processes, none left behind

ALLOCATE = ("import time\n"
            "b = bytearray({mib} * 1024 * 1024)\n"
            "for i in range(0, len(b), 4096): b[i] = 1\n"
            "time.sleep(0.2)\n")


def _time_v_maxrss(argv: list[str]) -> int:
    done = subprocess.run(["/usr/bin/time", "-v", *argv], capture_output=True, text=True,
                          timeout=120)
    kib = re.search(r"Maximum resident set size \(kbytes\): (\d+)", done.stderr)
    assert kib, done.stderr
    return int(kib.group(1)) * 1024


@pytest.mark.skipif(not Path("/usr/bin/time").exists(), reason="GNU time is not installed")
@pytest.mark.parametrize("mib", [8, 150])
def test_peak_rss_matches_usr_bin_time(mib: int):
    argv = [sys.executable, "-c", ALLOCATE.format(mib=mib)]
    ours = execute(argv, Path.cwd(), dict(os.environ), timeout_s=60)
    peak = max(ours.peak_rss_sampled, ours.ru_maxrss_bytes)
    reference = _time_v_maxrss(argv)
    assert abs(peak - reference) / reference < 0.03, (peak, reference)


def _use_sampler(monkeypatch, kind: str) -> None:
    from concbench.proc import process

    if kind == "python":
        monkeypatch.setattr(process, "binary", lambda: None)
    elif shutil.which("cc") is None and shutil.which("gcc") is None:
        pytest.skip("no C compiler for the native sampler")


def _sampled_peak(out) -> int:
    """The sampled tree RSS alone (not the kernel's high-water marks the outcome adds)."""
    return max(s.rss_bytes for s in out.samples)


@pytest.mark.skipif(not Path("/usr/bin/time").exists(), reason="GNU time is not installed")
@pytest.mark.parametrize("kind", ["native", "python"])
def test_each_sampler_reads_the_peak_usr_bin_time_reads(monkeypatch, kind):
    _use_sampler(monkeypatch, kind)
    argv = [sys.executable, "-c", ALLOCATE.format(mib=150).replace("0.2", "0.5")]
    out = execute(argv, Path.cwd(), dict(os.environ), timeout_s=60)
    assert out.sampler_kind == kind
    reference = _time_v_maxrss(argv)
    assert abs(_sampled_peak(out) - reference) / reference < 0.03, (_sampled_peak(out), reference)


TREE = ("import subprocess, sys, time\n"
        "time.sleep({delay})\n"
        "subprocess.run([sys.executable, '-c', {child!r}], check=True)\n")


@pytest.mark.parametrize("kind", ["native", "python"])
@pytest.mark.parametrize("born,holds", [(0.3, 1.5), (0.1, 0.6)], ids=["old-child", "young-child"])
def test_the_sampled_rss_counts_a_child_born_after_the_start(monkeypatch, kind, born, holds):
    """The tree's RSS includes a child forked soon after the start that holds 120 MiB for a
    while (the root's own high-water mark cannot show it: the root stays small). The young
    child lives 0.6 s: a sampler that first re-reads the tree at 1 s misses it."""
    _use_sampler(monkeypatch, kind)
    child = ALLOCATE.format(mib=120).replace("0.2", str(holds))
    out = execute([sys.executable, "-c", TREE.format(delay=born, child=child)], Path.cwd(),
                  dict(os.environ), timeout_s=60)
    assert out.sampler_kind == kind and out.exit_code == 0
    assert 120 << 20 <= _sampled_peak(out) < 200 << 20, _sampled_peak(out)


def test_peak_threads_and_cpu_are_seen():
    code = ("import threading, time\n"
            "ts = [threading.Thread(target=time.sleep, args=(0.5,)) for _ in range(20)]\n"
            "[t.start() for t in ts]\n"
            "s = sum(i for i in range(3_000_000))\n"
            "[t.join() for t in ts]\n"
            "time.sleep(0.3)\n")  # alone at the end: the peak is not the last sample
    out = execute([sys.executable, "-c", code], Path.cwd(), dict(os.environ), timeout_s=60)
    assert out.exit_code == 0
    assert out.peak_threads >= 21  # main + 20
    assert out.cpu_user_s > 0 and out.samples and out.samples[-1].cpu_s > 0
    assert out.sampler_cpu_s > 0


STUBBORN = ("import signal, sys, time\n"
            "log = open(sys.argv[1], 'w', buffering=1)\n"
            "signal.signal(signal.SIGTERM, lambda *_: log.write(f'term {time.monotonic()}\\n'))\n"
            "while True:\n"
            "    log.write(f'alive {time.monotonic()}\\n')\n"
            "    time.sleep(0.05)\n")


def test_a_timeout_sends_sigterm_then_sigkill_after_the_grace(tmp_path):
    """A run past its timeout gets SIGTERM first, and SIGKILL only KILL_GRACE_S (5 s) later:
    the contender, which ignores SIGTERM, is seen alive for most of the grace after it."""
    from concbench.batch.executor import KILL_GRACE_S

    log = tmp_path / "log"
    out = execute([sys.executable, "-c", STUBBORN, str(log)], tmp_path, dict(os.environ),
                  timeout_s=0.5)
    assert out.timed_out and out.term_signal == 9
    lines = [line.split() for line in log.read_text().splitlines()]
    terms = [float(t) for kind, t in lines if kind == "term"]
    assert len(terms) == 1, "no SIGTERM before the SIGKILL" if not terms else terms
    last = max(float(t) for kind, t in lines if kind == "alive")
    assert KILL_GRACE_S == 5.0
    assert last - terms[0] >= 0.8 * KILL_GRACE_S, (terms[0], last)  # at once would be ~0


def test_python_sampler_fallback_measures_too(monkeypatch):
    """Without a C compiler the Python sampler takes over, with the same results."""
    from concbench.proc import process

    monkeypatch.setattr(process, "binary", lambda: None)
    argv = [sys.executable, "-c", ALLOCATE.format(mib=40)]
    out = execute(argv, Path.cwd(), dict(os.environ), timeout_s=60, rss_limit=None)
    assert out.sampler_kind == "python" and out.exit_code == 0
    assert max(out.peak_rss_sampled, out.ru_maxrss_bytes) >= 40 << 20
    limited = execute(argv, Path.cwd(), dict(os.environ), timeout_s=60, rss_limit=20 << 20)
    assert limited.mem_limited and limited.term_signal == 9


def test_native_sampler_is_used_where_cc_exists():
    if shutil.which("cc") is None and shutil.which("gcc") is None:
        pytest.skip("no C compiler")
    out = execute([sys.executable, "-c", "import time; time.sleep(0.3)"], Path.cwd(),
                  dict(os.environ), timeout_s=60)
    assert out.sampler_kind == "native" and len(out.samples) > 5


def test_a_command_that_cannot_start_is_a_crash_not_a_traceback(tmp_path):
    out = execute([str(tmp_path / "missing-binary")], tmp_path, dict(os.environ), timeout_s=5)
    assert out.exit_code == 127 and "cannot start" in out.stderr_tail
