"""HotSpot's own JIT counters, read from its hsperfdata file: what `jstat -compiler` prints.

A HotSpot JVM (unless started with -XX:-UsePerfData or -XX:+PerfDisableSharedMem) keeps its
performance counters in a memory-mapped file, /tmp/hsperfdata_<user>/<pid>, which it updates in
place; `jstat` reads that same file (no attach, no safepoint). Reading it here instead of
running `jstat -compiler <pid>` spares a second JVM's start-up per reading: jstat costs about
0.5-1 s of CPU each time (it is a Java program), on a machine whose spare CPU the load generator
and the server share, twice per warm-up window. tests/test_jit_settled.py checks this parser
against jstat's own output.

The file's layout (HotSpot's perfMemory.hpp, the PerfDataPrologue and PerfDataEntry structs):
a 32-byte prologue, then entries one after the other.

  prologue: magic u4 (0xcafec0c0, written big-endian), byte_order u1 (0 big, 1 little),
            major u1, minor u1, accessible u1, used i4, overflow i4, mod_time_stamp i8,
            entry_offset i4, num_entries i4
  entry:    entry_length i4, name_offset i4, vector_length i4 (0: a scalar), data_type u1
            ('J' a 64-bit long, 'B' a byte vector: a string), flags u1, data_units u1,
            data_variability u1, data_offset i4; the name is NUL-terminated at
            entry start + name_offset, the value at entry start + data_offset.

The counters `jstat -compiler` shows, and what concbench calls them:
  Compiled      sun.ci.totalCompiles     compilations finished (C1 and C2, standard and OSR)
  Failed        sun.ci.totalBailouts     compilations given up
  Invalid       sun.ci.totalInvalidates  compiled methods thrown away (deoptimised)
  Time          java.ci.totalTime        ticks spent in compilations, by the clock
                                         (÷ sun.os.hrt.frequency: s)
  FailedMethod  sun.ci.lastFailedMethod
and sun.ci.lastMethod, the last method compiled. JDK 25 publishes no counter of the compile
queue's length nor of the compilation under way (jcmd's Compiler.queue needs an attach): a
queue that is still full shows as compilations still finishing, window after window.

Beside them, the garbage collector's, as `jstat -gcutil` sums them: sun.gc.collector.<n>
.invocations and .time over every collector (YGC + FGC + CGC and GCT: for Serial, Parallel and
G1, the stop-the-world pauses; G1's third collector is its concurrent cycle's pauses, remark
and clean-up), recorded as diagnostics.

The file of a JVM in another PID namespace is named by its pid there, and one started with
-XX:-UsePerfData has none: such a JVM reads as "no counters" (None), as a non-JVM process does.
"""

from __future__ import annotations

import os
import pwd
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from concbench.proc import tree as proc_tree

MAGIC = 0xCAFEC0C0
PROLOGUE = 32
ENTRY_HEADER = 20
PERF_DIR = Path("/tmp")
"""HotSpot puts hsperfdata_<user> under /tmp on Linux whatever java.io.tmpdir says."""


class CountersError(ValueError):
    """The file is not a HotSpot performance-data file this parser can read."""


def parse(data: bytes) -> dict[str, int | str]:
    """Every counter of an hsperfdata file's bytes: longs as int, byte vectors as str."""
    if len(data) < PROLOGUE or struct.unpack_from(">I", data, 0)[0] != MAGIC:
        raise CountersError("not a HotSpot hsperfdata file (bad magic)")
    if data[7] == 0:
        raise CountersError("the JVM has not made its counters accessible yet")
    order = "<" if data[4] == 1 else ">"
    entry_offset, entries = struct.unpack_from(order + "ii", data, 24)
    found: dict[str, int | str] = {}
    at = entry_offset
    for _ in range(entries):
        if at + ENTRY_HEADER > len(data):
            raise CountersError(f"entry at {at} runs past the file's {len(data)} bytes")
        length, name_at, vector, kind, _flags, _units, _var, value_at = struct.unpack_from(
            order + "iiibbbbi", data, at)
        if length <= 0:
            raise CountersError(f"entry at {at} has length {length}")
        name = data[at + name_at:data.index(b"\0", at + name_at)].decode("ascii", "replace")
        if kind == ord("J") and vector == 0:
            found[name] = struct.unpack_from(order + "q", data, at + value_at)[0]
        elif kind == ord("B") and vector > 0:
            raw = data[at + value_at:at + value_at + vector]
            found[name] = raw.split(b"\0", 1)[0].decode("utf-8", "replace")
        at += length
    return found


@dataclass(frozen=True)
class JitReading:
    """The JIT's counters at one moment (cumulative since the JVM started)."""

    compiled: int
    failed: int
    invalidated: int
    compile_s: float
    last_method: str
    """The last method compiled ("class method", as jstat -printcompilation shows it)."""
    gc_collections: int = 0
    """Collections by every collector (jstat's YGC + FGC + CGC)."""
    gc_s: float = 0.0
    """Their time (jstat's GCT), s."""

    @classmethod
    def of(cls, counters: dict[str, int | str]) -> "JitReading":
        hz = counters.get("sun.os.hrt.frequency")
        collections, gc_ticks = _collectors(counters)
        return cls(compiled=int(counters.get("sun.ci.totalCompiles", 0)),
                   failed=int(counters.get("sun.ci.totalBailouts", 0)),
                   invalidated=int(counters.get("sun.ci.totalInvalidates", 0)),
                   compile_s=_seconds(counters.get("java.ci.totalTime", 0), hz),
                   last_method=str(counters.get("sun.ci.lastMethod", "")),
                   gc_collections=collections, gc_s=_seconds(gc_ticks, hz))


def _seconds(ticks: int | str, hz: int | str | None) -> float:
    """HotSpot's ticks in seconds (0.0 without a frequency to divide by)."""
    return int(ticks) / hz if isinstance(hz, int) and hz > 0 else 0.0


def _collectors(counters: dict[str, int | str]) -> tuple[int, int]:
    """(invocations, ticks) summed over sun.gc.collector.<n>."""
    invocations = ticks = 0
    for name, value in counters.items():
        if name.startswith("sun.gc.collector.") and isinstance(value, int):
            if name.endswith(".invocations"):
                invocations += value
            elif name.endswith(".time"):
                ticks += value
    return invocations, ticks


@dataclass(frozen=True)
class JitDelta:
    """What the JIT did between two readings."""

    compiled: int
    failed: int
    invalidated: int
    compile_s: float
    """The compilations' time, summed: HotSpot times each by the clock, so a compiler thread
    waiting for a CPU it shares with 200 request threads counts that wait too."""
    last_method: str
    gc_collections: int = 0
    """Garbage collections between the readings: a diagnostic, never part of `work`."""
    gc_s: float = 0.0

    @classmethod
    def between(cls, before: JitReading, after: JitReading) -> "JitDelta":
        return cls(compiled=after.compiled - before.compiled,
                   failed=after.failed - before.failed,
                   invalidated=after.invalidated - before.invalidated,
                   compile_s=round(after.compile_s - before.compile_s, 4),
                   last_method=after.last_method if after.compiled > before.compiled else "",
                   gc_collections=after.gc_collections - before.gc_collections,
                   gc_s=round(after.gc_s - before.gc_s, 4))

    @property
    def work(self) -> int:
        """Compilations finished or given up, and compiled methods thrown away (each of
        which the JIT compiles again)."""
        return self.compiled + self.failed + self.invalidated

    @property
    def quiet(self) -> bool:
        return self.work == 0

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def perf_file(pid: int) -> Path | None:
    """The hsperfdata file of `pid`, if it is a JVM that keeps one."""
    try:
        user = pwd.getpwuid(os.stat(f"/proc/{pid}").st_uid).pw_name
    except (OSError, KeyError):
        return None
    path = PERF_DIR / f"hsperfdata_{user}" / str(pid)
    return path if path.is_file() else None


def read_pid(pid: int) -> JitReading | None:
    path = perf_file(pid)
    if path is None:
        return None
    try:
        return JitReading.of(parse(path.read_bytes()))
    except (OSError, CountersError):
        return None


def read_tree(pid: int) -> JitReading | None:
    """The counters of the JVM in the process tree under `pid` (a launcher script may sit
    between the harness and the JVM); None when there is none, or it keeps no counters."""
    return tree_probe(pid)()


JitProbe = Callable[[], "JitReading | None"]


def no_counters() -> JitReading | None:
    return None


def tree_probe(pid: int) -> JitProbe:
    """Readings of the JVM under `pid`; the tree is searched until the JVM is found, then only
    its file is read (a fraction of a millisecond: the file is 32 KiB)."""
    found: list[int] = []

    def read() -> JitReading | None:
        if found:
            return read_pid(found[0])
        for member in proc_tree.tree(pid):
            reading = read_pid(member)
            if reading is not None:
                found.append(member)
                return reading
        return None
    return read
