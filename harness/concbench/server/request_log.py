"""Every response of one continuous load, as oha logs it, and the figures of any span of it.

oha writes one CSV row per response it received (`--output-format csv`: request-start, DNS,
DNS+dialup, Response-delay, request-duration, bytes, status; seconds from oha's own start;
requests that got no response are not rows). With an open-loop rate and
`--latency-correction`, request-duration runs from the moment the request was *due*, so a
request's due time is its end minus its duration.

The harness cuts the warm-up intervals and the measured window out of this one log, so every
span is measured on the same open connections: a span's responses are those that *ended*
inside it (closed loop, as wrk counts a window), or, open loop, those *due* inside it, with
every request due there that never got a response (still in flight when the generator
stopped, or failed) counted as missed. A missed request was due before the span's end and
unanswered when the generator stopped, so its latency is at least the time from the span's
end to the stop: it enters the percentiles with that floor, so the p99 of a window whose
slowest 1 % never came back is at least that long rather than the p97 of those that did.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from concbench.server.loadgen.base import PERCENTILE_POINTS

HEADER = "request-start,DNS,DNS+dialup,Response-delay,request-duration,bytes,status"
OK_STATUS = 200


class LogError(ValueError):
    """The generator's log is not the CSV this module reads."""


@dataclass(frozen=True)
class RequestLog:
    """The responses of one load, sorted by end time, in seconds from the generator's start."""

    end_s: np.ndarray
    """When the response came (its first byte)."""
    duration_s: np.ndarray
    """Latency; open loop with correction: from the moment the request was due."""
    body_bytes: np.ndarray
    status: np.ndarray
    dialup_s: np.ndarray
    """Time to open the request's connection; 0 when it went on one already open."""
    first_write_s: float | None = None
    """When the first request went out (its start plus its connection's set-up): the moment
    the harness saw oha's first write, which puts this clock on the harness's."""

    @property
    def due_s(self) -> np.ndarray:
        return self.end_s - self.duration_s

    def __len__(self) -> int:
        return int(self.end_s.size)

    @property
    def ok(self) -> int:
        """The responses with status 200."""
        return int(np.count_nonzero(self.status == OK_STATUS))

    @classmethod
    def empty(cls) -> "RequestLog":
        z = np.zeros(0)
        return cls(z, z, z, z, z, None)

    @classmethod
    def parse(cls, text: str) -> "RequestLog":
        lines = text.split("\n", 1)
        if not lines or lines[0].strip() != HEADER:
            raise LogError(f"not oha's CSV log (first line {lines[0][:80]!r})")
        body = lines[1] if len(lines) > 1 else ""
        return cls._of(body.splitlines() if body.strip() else None)

    @classmethod
    def read(cls, path: Path) -> "RequestLog":
        """The log in a file, read by numpy's C parser (millions of rows take seconds)."""
        with path.open() as f:
            first = f.readline()
            if first.strip() != HEADER:
                raise LogError(f"not oha's CSV log (first line {first[:80]!r})")
            empty = not f.read(1)
        return cls._of(None if empty else path)

    @classmethod
    def _of(cls, source: "list[str] | Path | None") -> "RequestLog":
        if source is None:
            return cls.empty()
        return cls.of_rows(_rows(source, skip_header=isinstance(source, Path)))

    @classmethod
    def of_rows(cls, rows: np.ndarray) -> "RequestLog":
        """The log of oha's rows (7 columns, any order), sorted by end."""
        if rows.shape[0] == 0:
            return cls.empty()
        # the end from the first byte: with latency correction, request-duration runs from
        # the due time, not from request-start (a 200-byte response comes in one read)
        first_byte = np.where(rows[:, 3] > 0, rows[:, 3], rows[:, 4])
        end = rows[:, 0] + first_byte
        order = np.argsort(end, kind="stable")
        first = float((rows[:, 0] + rows[:, 2]).min())
        return cls(end[order], rows[order, 4], rows[order, 5], rows[order, 6], rows[order, 2],
                   first)

    def shifted(self, offset_s: float) -> "RequestLog":
        """The same log on another clock (t + offset_s)."""
        first = None if self.first_write_s is None else self.first_write_s + offset_s
        return RequestLog(self.end_s + offset_s, self.duration_s, self.body_bytes, self.status,
                          self.dialup_s, first)


@dataclass(frozen=True)
class Span:
    """The figures of the responses of one span of the load."""

    start_s: float
    end_s: float
    responses: int
    """Responses received (any status)."""
    ok: int
    """Responses with status 200."""
    missed: int
    """Open loop: requests due in the span that never got a response (0 closed loop)."""
    body_bytes: int
    latencies_ms: np.ndarray
    """Sorted; a missed request at its floor (the span's end to the generator's stop)."""
    mean_ms: float | None = None
    """The mean latency of the responses (the missed requests have none)."""
    ok_body_sizes: tuple[tuple[int, int], ...] = ()
    """(body bytes, responses) of the ok responses, each size once, smallest first: every
    response's size, which the bytes per response (a mean) would blur."""

    @property
    def seconds(self) -> float:
        return self.end_s - self.start_s

    @property
    def ok_per_s(self) -> float:
        return self.ok / self.seconds if self.seconds > 0 else 0.0

    def percentile(self, p: float) -> float | None:
        """The p-th percentile (nearest rank, as HdrHistogram reads one); None when empty."""
        n = self.latencies_ms.size
        if n == 0:
            return None
        # rounded before the ceiling: 99.9 / 100 × 2 000 is 1 998.0000000000002 in floating
        # point, whose ceiling would take the next rank
        rank = max(1, math.ceil(round(p / 100 * n, 9)))
        return float(self.latencies_ms[min(n, rank) - 1])


def _rows(source: "list[str] | Path", skip_header: bool = False) -> np.ndarray:
    try:
        rows = np.loadtxt(source, delimiter=",", ndmin=2, skiprows=1 if skip_header else 0)
    except ValueError as err:
        raise LogError(f"oha's CSV log has a bad row: {err}") from None
    if rows.shape[1] != 7:
        raise LogError(f"oha's CSV log has {rows.shape[1]} columns, expected 7")
    return rows


class LogTail:
    """A log read while oha is still writing it: each feed() parses the whole rows written
    since the last one, so the parsing overlaps oha's writing (millions of rows after its
    stop, one write(2) each) instead of following it."""

    def __init__(self, path: Path):
        self._path = path
        self._offset = 0
        self._header_seen = False
        self._parts: list[np.ndarray] = []

    def feed(self) -> None:
        """Parse the complete lines written so far."""
        try:
            with self._path.open("rb") as f:
                f.seek(self._offset)
                data = f.read()
        except FileNotFoundError:
            return
        end = data.rfind(b"\n")
        if end < 0:
            return
        self._offset += end + 1
        lines = data[:end].decode().split("\n")
        if not self._header_seen:
            if lines[0].strip() != HEADER:
                raise LogError(f"not oha's CSV log (first line {lines[0][:80]!r})")
            self._header_seen = True
            lines = lines[1:]
        lines = [line for line in lines if line.strip()]
        if lines:
            self._parts.append(_rows(lines))

    def finish(self) -> RequestLog:
        """The whole log, once its writer has exited."""
        self.feed()
        if not self._header_seen:
            raise LogError("oha's CSV log is empty")
        if not self._parts:
            return RequestLog.empty()
        return RequestLog.of_rows(np.concatenate(self._parts))


def span(log: RequestLog, start_s: float, end_s: float, due: int = 0,
         stopped_s: float | None = None) -> Span:
    """The responses that ended in [start_s, end_s) (closed loop); with `due` > 0, an open
    loop's responses *due* in it, and `due` − responses requests counted as missed, each at
    the latency floor stopped_s − end_s (+∞ when the stop is not known)."""
    if due > 0:
        inside = (log.due_s >= start_s) & (log.due_s < end_s)
    else:
        lo, hi = np.searchsorted(log.end_s, [start_s, end_s], side="left")
        inside = np.zeros(len(log), dtype=bool)
        inside[lo:hi] = True
    latencies = np.sort(log.duration_s[inside]) * 1000.0
    responses = int(latencies.size)
    mean = float(latencies.mean()) if responses else None
    missed = max(0, due - responses) if due > 0 else 0
    if missed:
        floor = math.inf if stopped_s is None else max(0.0, stopped_s - end_s) * 1000.0
        latencies = np.sort(np.concatenate([latencies, np.full(missed, floor)]))
    ok = inside & (log.status == OK_STATUS)
    sizes, counts = np.unique(log.body_bytes[ok].astype(np.int64), return_counts=True)
    return Span(start_s, end_s, responses, int(np.count_nonzero(ok)), missed,
                int(log.body_bytes[inside].sum()), latencies, mean,
                tuple((int(b), int(n)) for b, n in zip(sizes, counts)))


def latency_ms(found: Span) -> dict[str, float | None]:
    """p50, p90, p99, p999, max, min, mean (ms) of a span, as LoadResult.latency_ms."""
    lat = found.latencies_ms
    have = lat.size > 0
    return {"p50": found.percentile(50), "p90": found.percentile(90),
            "p99": found.percentile(99), "p999": found.percentile(99.9),
            "max": float(lat[-1]) if have else None,
            "min": float(lat[0]) if have else None,
            "mean": found.mean_ms}


def percentile_points(found: Span) -> list[tuple[float, float]]:
    """(percentile, ms) at PERCENTILE_POINTS, the maximum at 100."""
    points = [(p, found.percentile(p)) for p in PERCENTILE_POINTS]
    return [(p, v) for p, v in points if v is not None]


def new_connections(log: RequestLog, start_s: float, end_s: float) -> int:
    """Responses in [start_s, end_s) whose request had to open its connection first."""
    lo, hi = np.searchsorted(log.end_s, [start_s, end_s], side="left")
    return int(np.count_nonzero(log.dialup_s[lo:hi] > 0))
