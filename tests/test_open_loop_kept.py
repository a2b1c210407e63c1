"""An open-loop window's curve point (server.saturation.open_loop_record, docs/contract.md
"Latency–load curves") from made-up oha figures with every term non-zero: responses ok and not
ok, requests that got no response (connect, timeout), requests in flight at the deadline, and
oha's backlog; so dropping a term, or moving one, changes `kept_ratio` or `unsent`.

kept = (ok + in flight at the deadline) / due: a request sent on time and still being served
when the window closed is not falling behind; a non-200 answer is not kept.
unsent = due - responses (any status) - requests without a response - in flight.
"""

from __future__ import annotations

import pytest

from concbench.server.loadgen import LoadResult
from concbench.server.saturation import open_loop_record

OFFERED = 1000
WINDOW_S = 1.5
"""oha runs whole seconds (-z 2s): 2000 requests are due, not 1500."""
DUE = 2000


def _load(ok: int, not_ok: int, connect: int, timeout: int, in_flight: int) -> LoadResult:
    requests = ok + not_ok
    return LoadResult(generator="oha", requests=requests, ok_requests=ok, duration_s=2.0,
                      requests_per_s=ok / 2.0, latency_ms={"p99": 3.0}, percentiles=[],
                      errors={"connect": connect, "timeout": timeout, "status": not_ok},
                      cpu_s=0.1, wall_s=2.0, cpus=(), command=[], corrected=True,
                      notes={"aborted_at_deadline": in_flight})


def test_requests_in_flight_at_the_deadline_count_as_kept_and_not_as_unsent():
    """1975 ok + 10 in flight of 2000 due: kept 99.25 % (99 % needed); without the in-flight
    ones 98.75 %, saturated. Unsent: 2000 - 1980 responses - 3 unanswered - 10 in flight."""
    point = open_loop_record(_load(ok=1975, not_ok=5, connect=2, timeout=1, in_flight=10),
                             OFFERED, WINDOW_S)
    assert point["due"] == DUE
    assert point["kept_ratio"] == pytest.approx(1985 / 2000)
    assert point["unsent"] == 7
    assert point["in_flight_at_deadline"] == 10
    assert point["achieved_per_s"] == 987.5 and point["achieved_ratio"] == 0.9875
    assert (point["saturated"], point["why"]) == (False, None)


def test_non_200_answers_are_not_kept_but_are_not_unsent_either():
    """1900 ok, 50 other statuses, 15 unanswered, 8 in flight: kept (1900 + 8) / 2000 = 95.4 %;
    unsent 2000 - 1950 - 15 - 8 = 27, above 1 % of the due (20): both reasons, exactly."""
    point = open_loop_record(_load(ok=1900, not_ok=50, connect=10, timeout=5, in_flight=8),
                             OFFERED, WINDOW_S)
    assert point["kept_ratio"] == pytest.approx(0.954)
    assert point["unsent"] == 27
    assert point["saturated"] is True
    assert point["why"] == ("answered or served at the deadline 95.4% of the requests due; "
                            "27 of 2000 requests due were never sent (oha's backlog)")


def test_kept_is_judged_at_exactly_99_percent_of_the_due():
    """1975 ok + 5 in flight = 1980 of 2000: exactly 99 %, kept up; with one fewer in flight,
    98.95 %, fallen behind (unsent 18 and 19: under 1 % of the due, not a reason)."""
    held = open_loop_record(_load(ok=1975, not_ok=0, connect=1, timeout=1, in_flight=5),
                            OFFERED, WINDOW_S)
    assert (held["kept_ratio"], held["unsent"], held["saturated"]) == (0.99, 18, False)
    behind = open_loop_record(_load(ok=1975, not_ok=0, connect=1, timeout=1, in_flight=4),
                              OFFERED, WINDOW_S)
    assert (behind["kept_ratio"], behind["unsent"], behind["saturated"]) == (0.9895, 19, True)
    assert "never sent" not in behind["why"]
