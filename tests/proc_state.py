"""Whether a process is still alive, as the tests that hunt for survivors ask it."""

from __future__ import annotations


def alive(pid: int) -> bool:
    """True while /proc/<pid> exists and the process is not a zombie (an exited child that
    nobody has reaped yet is gone for every purpose of these tests)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False
