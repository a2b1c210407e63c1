"""The CPU of a JVM's JIT compiler threads, from /proc: the share of a process's CPU that went
to compiling rather than to the work measured.

HotSpot names its compiler threads "C1 CompilerThreadN" and "C2 CompilerThreadN" (Graal's
"JVMCI CompilerThreadN"); /proc truncates a thread's name to 15 bytes. Their user + system
time (proc(5) stat fields 14 and 15, in clock ticks) summed over every thread of the process
tree is the JIT's CPU so far. A compiler thread that exits (HotSpot adds and removes them as
its queue grows and shrinks) takes its time with it, so differences are floors.
"""

from __future__ import annotations

import os
from typing import Iterator

from concbench.proc import tree as proc_tree

JIT_THREAD_PREFIXES = (b"C1 CompilerThre", b"C2 CompilerThre", b"JVMCI CompilerT")
_TICKS = os.sysconf("SC_CLK_TCK")


def tree_thread_files(pid: int, name: str) -> Iterator[bytes]:
    """/proc/<p>/task/<tid>/<name> of every thread of the process tree (threads that end
    meanwhile are skipped)."""
    for proc in proc_tree.tree(pid):
        try:
            tids = os.listdir(f"/proc/{proc}/task")
        except OSError:
            continue
        for tid in tids:
            try:
                with open(f"/proc/{proc}/task/{tid}/{name}", "rb") as f:
                    yield f.read()
            except OSError:
                continue


def jit_cpu_s(pid: int) -> float | None:
    """User + system CPU of the JIT compiler threads in the process tree, or None if it has
    none (not a JVM; a launcher script may sit between the harness and the JVM)."""
    total, found = 0, False
    for stat in tree_thread_files(pid, "stat"):
        comm = stat[stat.index(b"(") + 1:stat.rindex(b")")]
        if comm.startswith(JIT_THREAD_PREFIXES):
            fields = stat[stat.rindex(b")") + 2:].split()
            total += int(fields[11]) + int(fields[12])  # utime, stime (proc(5) fields 14, 15)
            found = True
    return total / _TICKS if found else None
