"""Whether a server kept up with an open-loop offered rate: one point of a latency–load curve.

oha schedules a request every 1/rate seconds whatever the server does; a request due while
every connection waits for a response queues inside oha (its latency still counts from when it
was due: --latency-correction), and requests still queued at the deadline are never sent.
A server falls behind (is `saturated` at that rate) when the ok responses, with the requests
still in flight at the deadline, fall below ACHIEVED_SHARE of the requests due in the window,
or when more than UNSENT_SHARE of them were never sent (oha's own backlog at the deadline).
The requests in flight at the deadline were sent on time and are being served: a window cuts
off about rate × latency of them (2 % of a 2 s window at 45 ms), which is not falling behind;
a server that falls behind shows it in oha's backlog, as in-flight requests are at most one
per connection. A window cut from a log of every response (server.continuous, server.rate_point)
counts the requests due in it exactly, and those that never answered as missed.
"""

from __future__ import annotations

import math
from typing import Any

from concbench.server.loadgen import LoadResult

ACHIEVED_SHARE = 0.99
UNSENT_SHARE = 0.01


def open_loop_record(load: LoadResult, offered_per_s: int, window_s: float) -> dict[str, Any]:
    """The curve point of one measured window: offered, achieved, backlog and the verdict."""
    if "due" in load.notes:
        return _counted_record(load, offered_per_s)
    due = offered_per_s * math.ceil(window_s)  # oha runs whole seconds (-z)
    aborted = int(load.notes.get("aborted_at_deadline", 0) or 0)
    failed = load.errors_total - load.errors.get("status", 0)  # no response at all
    unsent = max(0, due - load.requests - failed - aborted)
    achieved = load.requests_per_s
    ratio = achieved / offered_per_s if offered_per_s > 0 else None
    kept = (load.ok_requests + aborted) / due if due else None
    why = []
    if kept is not None and kept < ACHIEVED_SHARE:
        why.append(f"answered or served at the deadline {kept:.1%} of the requests due")
    if due and unsent > UNSENT_SHARE * due:
        why.append(f"{unsent} of {due} requests due were never sent (oha's backlog)")
    return {"offered_per_s": offered_per_s, "achieved_per_s": achieved,
            "achieved_ratio": ratio, "due": due, "unsent": unsent,
            "in_flight_at_deadline": aborted, "kept_ratio": kept,
            "saturated": bool(why), "why": "; ".join(why) or None}


def _counted_record(load: LoadResult, offered_per_s: int) -> dict[str, Any]:
    """A window cut from a log of every response (server.continuous): the requests due in it
    are known, and those that never answered (never sent, or still in flight at the stop)
    are `missed`."""
    due, missed = int(load.notes["due"]), int(load.notes.get("missed", 0))
    kept = load.ok_requests / due if due else None
    why = []
    if kept is not None and kept < ACHIEVED_SHARE:
        why.append(f"answered {kept:.1%} of the requests due ({missed} never answered)")
    return {"offered_per_s": offered_per_s, "achieved_per_s": load.requests_per_s,
            "achieved_ratio": load.requests_per_s / offered_per_s if offered_per_s else None,
            "due": due, "missed": missed, "unsent": None, "in_flight_at_deadline": None,
            "kept_ratio": kept, "saturated": bool(why), "why": "; ".join(why) or None}
