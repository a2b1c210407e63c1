"""The forms a server workload's `rate` parameter takes besides requests per second: `N%`, a
share of the server's own closed-loop peak (server.rate_grid probes it), and `auto`, the grid
AUTO_PERCENTS. Here, beside the parameters, so a plan expands `rate=auto` without the server
package."""

from __future__ import annotations

from typing import Any

from concbench.errors import UserError

AUTO = "auto"
AUTO_PERCENTS = (10, 25, 50, 75, 90, 100)


def expand_auto(given: dict[str, str], scans: dict[str, str]) -> tuple[dict[str, str],
                                                                        dict[str, str]]:
    """`rate=auto` given as a --param or in a --scan becomes the scan of AUTO_PERCENTS."""
    grid = ",".join(f"{p}%" for p in AUTO_PERCENTS)
    if given.get("rate", "").strip().lower() == AUTO:
        if "rate" in scans:
            raise UserError("rate is both a --param and a --scan; give it once")
        given = {k: v for k, v in given.items() if k != "rate"}
        return given, {**scans, "rate": grid}
    values = [v.strip().lower() for v in scans.get("rate", "").split(",")]
    if AUTO in values:
        if values != [AUTO]:
            raise UserError("--scan rate=auto is a grid of its own "
                            f"({grid}); give it alone or list the rates")
        scans = {**scans, "rate": grid}
    return given, scans


def percent_of_peak(rate: Any) -> int | None:
    """The share of the probed peak a `rate` value asks for ("50%" → 50), or None."""
    if isinstance(rate, str) and rate.endswith("%"):
        return int(rate[:-1])
    return None
