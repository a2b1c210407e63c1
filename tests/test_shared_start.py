"""verify's cells of one server whose command is the same run on one server start
(plan.Settings.share_server_starts, server.measure.measure_servers): http-hello's keep-alive
and Connection: close cells, each with its own verification, load and window; a run plan
never shares; a run after a failed one on the same start is recorded as not run, with why."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.middle


def _cells(doc: dict) -> dict[str, dict]:
    return {c["params"]["keepalive"]: c for c in doc["cells"]}


def test_verifys_two_hello_cells_share_one_start_each_with_its_own_load_and_window(fake_bench):
    res = fake_bench("verify", "--contender", "fake-server", "--workload", "http-hello")
    assert res.code == 0, res.stdout + res.stderr
    cells = _cells(fake_bench.last())
    assert set(cells) == {"true", "false"}
    runs = {k: c["runs"][0] for k, c in cells.items()}
    assert all(r["status"] == "ok" for r in runs.values()), runs
    servers = {k: r["server"] for k, r in runs.items()}
    assert servers["true"]["target"] == servers["false"]["target"], "one start, one port"
    assert servers["true"]["ready_s"] == servers["false"]["ready_s"]
    for run in runs.values():
        assert run["load"]["ok_requests"] > 0 and run["server"]["verification"], run
        assert run["server"]["window"] is not None and run["server"]["window"]["window_s"] > 0
    assert runs["true"]["server"]["window"] != runs["false"]["server"]["window"]
    assert runs["false"]["load"]["connections_opened_in_window"] > 0
    assert runs["true"]["load"]["connections_opened_in_window"] == 0


def test_a_run_plan_starts_the_server_for_every_run(fake_bench):
    res = fake_bench("run", "http-hello", "--contender", "fake-server", "--scan",
                     "keepalive=true,false", "--runs", "1", "--param", "connections=16",
                     "--param", "duration-s=1", "--param", "warmup-s=0")
    assert res.code == 0, res.stdout + res.stderr
    targets = {k: c["runs"][0]["server"]["target"] for k, c in _cells(fake_bench.last()).items()}
    assert targets["true"] != targets["false"], targets


def test_a_run_after_a_failed_one_on_the_same_start_is_not_run_and_says_why(fake_bench):
    res = fake_bench("verify", "--contender", "fake-server-wrongbody", "--workload",
                     "http-hello")
    assert res.code != 0
    cells = _cells(fake_bench.last())
    first, second = cells["true"]["runs"][0], cells["false"]["runs"][0]
    assert first["status"] == "invalid" and "verification" in first["reason"], first["reason"]
    assert second["status"] == "invalid", second
    assert second["reason"].startswith("not run: the run before it on the same server start "
                                       "ended invalid: verification"), second["reason"]
    assert second["load"] is None
