"""The limits a cell's contender runs under: a CPU quota (in CPUs, fractional) and a memory
limit (bytes), as `docker run --cpus --memory` and a Kubernetes container's limits give them.

A quota is enforced per period: `cpus` × PERIOD_US of CPU time in every PERIOD_US, the 100 ms
that Docker and Kubernetes use, so a burst that spends its quota early in a period waits,
throttled, for the next one.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

from concbench.errors import UserError

PERIOD_US = 100_000
MIN_QUOTA_US = 1_000
"""The kernel refuses a quota under 1 ms per period."""
MIN_MEMORY = 4 * 1024 * 1024
"""Below a few MiB not even a shell starts; such a limit is a typo."""

_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmgt]?)i?b?\s*$", re.IGNORECASE)


def parse_cpus(text: Any, where: str = "--cpus") -> float:
    """'1', '0.5', 2 → CPUs of quota: a positive number of at least 0.01."""
    try:
        cpus = float(text)
    except (TypeError, ValueError):
        raise UserError(f"{where}={text!r}: give a number of CPUs such as 1 or 0.5") from None
    if not math.isfinite(cpus) or cpus * PERIOD_US < MIN_QUOTA_US:
        raise UserError(f"{where}={text!r}: the quota must be at least "
                        f"{MIN_QUOTA_US / PERIOD_US:g} CPUs (1 ms per 100 ms period)")
    return cpus


def parse_memory(text: Any, where: str = "--memory") -> int:
    """'512M', '2G', 1048576 → bytes (K, M, G, T are powers of 1024, as Docker reads them)."""
    match = _SIZE.match(str(text))
    if not match:
        raise UserError(f"{where}={text!r}: give a size such as 256M or 2G")
    scale = 1024 ** " kmgt".index((match.group(2) or " ").lower())
    size = int(float(match.group(1)) * scale)
    if size < MIN_MEMORY:
        raise UserError(f"{where}={text!r}: a memory limit under 4M leaves nothing to run in")
    return size


def memory_text(size: int) -> str:
    """Bytes as the shortest exact size: 268435456 → '256M'."""
    for unit, scale in (("G", 1024 ** 3), ("M", 1024 ** 2), ("K", 1024)):
        if size % scale == 0:
            return f"{size // scale}{unit}"
    return str(size)


@dataclass(frozen=True)
class Limits:
    cpus: float | None = None
    """CPU quota in CPUs (0.5: 50 ms per 100 ms period); None: no quota."""
    memory: int | None = None
    """Memory limit in bytes (swap included: no swap); None: no limit."""

    def __bool__(self) -> bool:
        return self.cpus is not None or self.memory is not None

    @property
    def quota_us(self) -> int | None:
        return None if self.cpus is None else round(self.cpus * PERIOD_US)

    def over(self, default: "Limits") -> "Limits":
        """These limits, each one not set taken from `default` (a suite cell's own limits
        over the plan's)."""
        return Limits(self.cpus if self.cpus is not None else default.cpus,
                      self.memory if self.memory is not None else default.memory)

    def as_params(self) -> dict[str, Any]:
        """How the limits appear beside a cell's parameters in the results (and so in every
        table, label and comparison): cpus=0.5, memory=256M."""
        found: dict[str, Any] = {}
        if self.cpus is not None:
            found["cpus"] = int(self.cpus) if self.cpus == int(self.cpus) else self.cpus
        if self.memory is not None:
            found["memory"] = memory_text(self.memory)
        return found

    def to_dict(self) -> dict[str, Any]:
        return {"cpus": self.cpus, "memory_bytes": self.memory}

    @classmethod
    def from_dict(cls, d: dict[str, Any] | None) -> "Limits":
        d = d or {}
        return cls(d.get("cpus"), d.get("memory_bytes"))

    @classmethod
    def parse(cls, cpus: Any, memory: Any, cpus_name: str, memory_name: str) -> "Limits":
        """From the command line or a suite (None: not given); the names go in errors."""
        return cls(None if cpus is None else parse_cpus(cpus, cpus_name),
                   None if memory is None else parse_memory(memory, memory_name))
