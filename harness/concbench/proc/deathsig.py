"""Helper processes that must not outlive the harness."""

from __future__ import annotations

import shutil


def dies_with_us(argv: list[str]) -> list[str]:
    """argv under `setpriv --pdeathsig KILL` (util-linux): the kernel kills the generator if
    the harness dies, even by SIGKILL (setpriv execs, so the process is still argv[0])."""
    if shutil.which("setpriv") is None:
        return argv
    return ["setpriv", "--pdeathsig", "KILL", "--", *argv]
