"""Human formatting of times, sizes, ratios and rates."""

from __future__ import annotations


def seconds(v: float | None) -> str:
    if v is None:
        return "—"
    if v >= 100:
        return f"{v:.0f} s"
    if v >= 1:
        return f"{v:.2f} s"
    if v >= 1e-3:
        return f"{v * 1e3:.1f} ms"
    return f"{v * 1e6:.0f} µs"


def milliseconds(v: float | None) -> str:
    if v is None:
        return "—"
    if v >= 1000:
        return seconds(v / 1000)
    if v >= 100:
        return f"{v:.0f} ms"
    return f"{v:.1f} ms" if v >= 1 else f"{v * 1000:.0f} µs"


def size(v: float | None) -> str:
    if v is None:
        return "—"
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if abs(v) >= scale:
            return f"{v / scale:.1f} {unit}"
    return f"{v:.0f} B"


def percent(v: float | None) -> str:
    return "—" if v is None else f"{v:.0%}"


def rate(v: float | None, unit: str) -> str:
    if v is None:
        return "—"
    for suffix, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if v >= scale:
            return f"{v / scale:.2f} {suffix}{unit}/s"
    return f"{v:.1f} {unit}/s"


def count(v: float | None) -> str:
    """Whole counts as integers; a median between two counts keeps its half (120.5)."""
    if v is None:
        return "—"
    return f"{v:,.0f}" if float(v).is_integer() else f"{v:,.1f}"


def ratio(v: float | None) -> str:
    return "—" if v is None else f"{v:.2f}×"
