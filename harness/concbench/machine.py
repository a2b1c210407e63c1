"""The machine block of results.json: what the numbers were measured on, and its limits."""

from __future__ import annotations

import os
import platform
import resource
import subprocess
from pathlib import Path
from typing import Any

from concbench.paths import REPO_ROOT


def _read(path: str) -> str | None:
    try:
        return Path(path).read_text().strip()
    except OSError:
        return None


def _cpu_model() -> str:
    for line in (_read("/proc/cpuinfo") or "").splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown"


def _os_name() -> str:
    for line in (_read("/etc/os-release") or "").splitlines():
        if line.startswith("PRETTY_NAME="):
            return line.split("=", 1)[1].strip('"')
    return platform.system()


def _cgroup_limits() -> dict[str, str | None]:
    return {"cpu.max": _read("/sys/fs/cgroup/cpu.max"),
            "memory.max": _read("/sys/fs/cgroup/memory.max"),
            "pids.max": _read("/sys/fs/cgroup/pids.max")}


def describe() -> dict[str, Any]:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    return {
        "hostname": platform.node(),
        "cpu_model": _cpu_model(),
        "logical_cores": os.cpu_count(),
        "affinity": sorted(os.sched_getaffinity(0)),
        "memory_bytes": os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"),
        "kernel": platform.release(),
        "os": _os_name(),
        "python": platform.python_version(),
        "cgroup": _cgroup_limits(),
        "limits": {
            "open_files_soft": soft, "open_files_hard": hard,
            "pid_max": int(_read("/proc/sys/kernel/pid_max") or 0) or None,
            "threads_max": int(_read("/proc/sys/kernel/threads-max") or 0) or None,
        },
    }


def revision() -> str:
    """The concbench git revision, with '-dirty' when the tree has local changes."""
    try:
        rev = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], cwd=REPO_ROOT,
                             capture_output=True, text=True, timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"],
                               cwd=REPO_ROOT, capture_output=True, text=True,
                               timeout=10).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"
    return (rev or "unknown") + ("-dirty" if dirty else "")
