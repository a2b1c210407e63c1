"""Arguments, output lines and the event loop, shared by every workload (docs/contract.md)."""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable
from typing import Any

PROG = "concbench-python"

# Go's time.Duration bound, which the other contenders share: larger millisecond values are refused.
MAX_MILLIS = (2**63 - 1) // 1_000_000


class BadInput(Exception):
    """Unknown workload, unknown/missing/repeated parameter or a malformed value: exit 2."""


class Params:
    """The raw --name=value arguments of one workload, each name given exactly once."""

    def __init__(self, workload: str, names: list[str], args: list[str]):
        allowed = set(names)
        self._raw: dict[str, str] = {}
        for arg in args:
            name, sep, value = arg[2:].partition("=") if arg.startswith("--") else ("", "", "")
            if not sep or not name:
                raise BadInput(f"malformed argument {arg!r} (want --name=value)")
            if name not in allowed:
                raise BadInput(f"unknown parameter --{name} for workload {workload}")
            if name in self._raw:
                raise BadInput(f"parameter --{name} given twice")
            self._raw[name] = value
        for name in names:
            if name not in self._raw:
                raise BadInput(f"missing parameter --{name} for workload {workload}")

    def str(self, name: str) -> str:
        return self._raw[name]

    def int(self, name: str, minimum: int = 0) -> int:
        """A plain decimal integer (ASCII digits only, no sign, no underscores) >= minimum."""
        s = self._raw[name]
        if not s:
            raise BadInput(f"--{name}: empty value")
        if not (s.isascii() and s.isdigit()):
            raise BadInput(f"--{name}={s}: not a non-negative integer")
        v = int(s)
        if v >= 2**63:
            raise BadInput(f"--{name}={s}: not a valid integer")
        if v < minimum:
            raise BadInput(f"--{name}={s}: must be at least {minimum}")
        return v

    def seconds(self, name: str) -> float:
        """A whole number of milliseconds, as the seconds asyncio.sleep takes."""
        ms = self.int(name)
        if ms > MAX_MILLIS:
            raise BadInput(f"--{name}={ms}: too large a duration")
        return ms / 1000

    def ipv4(self, name: str) -> str:
        """An IPv4 address literal such as 127.0.0.1 (servers' --bind and --backend-host)."""
        import ipaddress  # here, not at the top: only the servers need it

        s = self._raw[name]
        try:
            return str(ipaddress.IPv4Address(s))
        except ValueError:
            raise BadInput(f"--{name}={s}: not an IPv4 address") from None

    def port(self) -> int:
        port = self.int("port")
        if port > 65535:
            raise BadInput(f"--port={port}: not a TCP port")
        return port


def emit(line: dict[str, Any]) -> None:
    """One JSON line on stdout, flushed at once (the harness reads lines as they come)."""
    sys.stdout.write(json.dumps(line, separators=(",", ":"), ensure_ascii=False) + "\n")
    sys.stdout.flush()


def emit_mark(name: str, index: int, elapsed_ns: int) -> None:
    emit({"type": "mark", "name": name, "index": index, "elapsed_ns": elapsed_ns})


now_ns = time.perf_counter_ns  # CLOCK_MONOTONIC on Linux
cpu_ns = time.process_time_ns  # CLOCK_PROCESS_CPUTIME_ID: every thread's user + system time
CPU_TICK_NS = max(1, round(time.get_clock_info("process_time").resolution * 1e9))


def own_cpu(cpu_start: int) -> dict[str, int]:
    """The iteration line's cpu_ns / cpu_tick_ns since cpu_start (docs/contract.md)."""
    return {"cpu_ns": cpu_ns() - cpu_start, "cpu_tick_ns": CPU_TICK_NS}


def clock_read_ns() -> int:
    """The cost of one now_ns() as ring 1's readings take it: 10 000 in a row, averaged."""
    reads, clock = 10_000, now_ns
    start = clock()
    for _ in range(reads):
        clock()
    return round((clock() - start) / reads)


def usable_cpus() -> int:
    """CPUs this process may run on (os.process_cpu_count() from Python 3.13 on)."""
    count = getattr(os, "process_cpu_count", None)
    return (count() if count else None) or len(os.sched_getaffinity(0))


LOOPS = ("asyncio", "uvloop")


def loop_factory(name: str) -> Callable[[], Any] | None:
    """The event-loop factory for asyncio.Runner: None is asyncio's default (the selector
    loop on epoll), uvloop.new_event_loop the libuv-based loop."""
    if name == "uvloop":
        import uvloop

        return uvloop.new_event_loop
    return None


def runtime_info(loop: str) -> dict[str, Any]:
    """What the ready line and the notes say about the runtime."""
    import platform

    info: dict[str, Any] = {
        "cpus": usable_cpus(),
        "loop": loop,
        "event_loop_threads": 1,
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
    }
    if loop == "uvloop":
        import uvloop

        info["uvloop"] = uvloop.__version__
    return info
