"""Nothing taken on trust under load: a server that answers the verification request right
and then does less under load is `invalid`, one fake per hole (tests/fake/server.py), each
with a reason that names the hole; and what the harness records about the measured window
(bytes per response, downstream calls, kernel counters, the runtime's CPUs)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

pytestmark = [pytest.mark.measures,  # tests/conftest.py: one measuring test at a time
              pytest.mark.skipif(shutil.which("wrk") is None and shutil.which("apt-get") is None,
                                 reason="wrk is not installed and cannot be (no apt-get)")]

REPO = Path(__file__).resolve().parents[1]
LOAD = ["--param", "connections=8", "--param", "duration-s=1", "--param", "warmup-s=0",
        "--runs", "1"]
AGGREGATE = ["--param", "base-ms=10", "--param", "detail-ms=10", "--param", "extra-ms=20"]


def _cell(fake_bench, workload: str, contender: str, *more: str,
          load: list[str] = LOAD) -> dict:
    res = fake_bench("run", workload, "--contender", contender, *load, *more)
    assert res.code == 0, res.stderr
    cells = fake_bench.last()["cells"]
    assert len(cells) == 1
    return cells[0]


# -- what a good server's run records --------------------------------------------------------


@pytest.mark.parametrize("loadgen,counted", [("oha", "body"), ("wrk", "wire")])
def test_a_good_run_records_its_bytes_calls_and_kernel_counters(fake_bench, loadgen, counted):
    cell = _cell(fake_bench, "http-aggregate", "fake-server", *AGGREGATE,
                 "--param", "downstream=http", "--param", f"loadgen={loadgen}")
    assert cell["status"] == "ok", cell["reason"]
    run = cell["runs"][0]
    server, load = run["server"], run["load"]
    verified = server["verification"][0]
    assert verified["wire_bytes"] > verified["bytes"] > 0
    checks = server["under_load"]
    low, high = checks["bytes_per_response"]["range"]
    assert low <= load["bytes_per_response"] <= high
    assert checks["bytes_per_response"]["counted"] == counted
    calls = checks["downstream"]
    # a continuous window (oha) begins mid-load: the requests then in flight, one per
    # connection, may have made their calls before it (server.load_checks.downstream_check)
    answered = load["ok_requests"] - (8 if loadgen == "oha" else 0)
    assert calls["calls"] == run["backend"]["requests_in_window"] >= 3 * answered
    assert calls["delay_ms"] >= answered * (10 + 10 + 20)
    sampled = checks["sampled"]  # 1 s window: a sample at 0.5 s, perhaps one at 1 s
    assert sampled["checked"] >= 1 and sampled["wrong"] == 0, sampled
    if loadgen == "oha":
        assert checks["bytes_per_response"]["each_body"]["outside"] == 0
        assert sum(load["ok_body_sizes"].values()) == load["ok_requests"]
    after = server["after_load"]
    assert after["status"] == 200 and after["downstream_calls"] == 3
    assert after["elapsed_ms"] >= 30
    kernel = server["kernel"]
    assert set(kernel) >= {"ListenOverflows", "ListenDrops", "RetransSegs", "OutRsts",
                           "EstabResets"}
    assert all(type(v) is int and v >= 0 for v in kernel.values())


def test_without_keepalive_the_sizes_still_match(fake_bench):
    cell = _cell(fake_bench, "http-hello", "fake-server", "--param", "keepalive=false")
    assert cell["status"] == "ok", cell["reason"]
    run = cell["runs"][0]
    low, high = run["server"]["under_load"]["bytes_per_response"]["range"]
    assert low <= run["load"]["bytes_per_response"] <= high


# -- bodies under load -------------------------------------------------------------------------


@pytest.mark.answers_only  # wrong answers under a second of light load: beside the measuring tests
@pytest.mark.parametrize("contender,loadgen,why", [
    ("fake-server-shortbody", "oha", "bytes per response under load"),
    ("fake-server-shortbody", "wrk", "bytes per response under load"),
    # wrk counts a 204 as a success, so the bytes tell it; oha counts every status but 200 as
    # an error, so no response under load succeeded
    ("fake-server-nocontent", "wrk", "bytes per response under load"),
    ("fake-server-nocontent", "oha", "no successful response under load")])
def test_short_or_empty_bodies_under_load_are_invalid(fake_bench, contender, loadgen, why):
    cell = _cell(fake_bench, "http-hello", contender, "--param", f"loadgen={loadgen}")
    assert cell["status"] == "invalid", cell["reason"]
    assert why in cell["reason"], cell["reason"]
    assert cell["runs"][0]["server"]["verification"][0]["status"] == 200


def _warmed_up(fake_bench, contender: str, loadgen: str) -> dict:
    """http-hello's cell after a fixed 2 s warm-up and a 1 s window on 8 connections: four
    samples or so in the warm-up (one every 0.5 s), one or two in the window."""
    warmed = [a.replace("warmup-s=0", "warmup-s=2") for a in LOAD]
    return _cell(fake_bench, "http-hello", contender, "--param", f"loadgen={loadgen}",
                 "--param", "warmup-steady-pct=0", load=warmed)


def test_a_continuous_loads_samples_begin_with_its_warm_up(fake_bench, oha):
    """One continuous load: the harness's checked requests are part of the load the server
    warms up on (a JIT sees them in the warm-up, not first in the window), and the window
    still gets its own; the window's accounting counts only those sent in it."""
    cell = _warmed_up(fake_bench, "fake-server", "oha")
    assert cell["status"] == "ok", cell["reason"]
    server = cell["runs"][0]["server"]
    assert server["continuous"] is not None
    sampled = server["under_load"]["sampled"]  # every 0.5 s: 2 s of warm-up, a 1 s window
    assert sampled["before_window"] >= 2, sampled
    assert sampled["checked"] - sampled["before_window"] >= 1 and sampled["wrong"] == 0, sampled


def test_a_window_on_a_load_of_its_own_has_its_samples_warmed_up_too(fake_bench):
    """A load per window (wrk here; a capacity search's point loads too): the harness's
    checked requests also run through the warm-up, so a JIT meets them there and not first in
    the window; the window's own sampler counts only its own."""
    cell = _warmed_up(fake_bench, "fake-server", "wrk")
    assert cell["status"] == "ok", cell["reason"]
    server = cell["runs"][0]["server"]
    assert server["continuous"] is None
    warmed = server["warmup"]["sampled"]  # every 0.5 s through 2 s of warm-up
    assert warmed["checked"] >= 2 and warmed["wrong"] == 0, warmed
    assert server["under_load"]["sampled"]["before_window"] == 0


@pytest.mark.answers_only  # wrong answers under a second of light load: beside the measuring tests
def test_same_length_wrong_bodies_in_a_warm_up_are_invalid(fake_bench):
    cell = _warmed_up(fake_bench, "fake-server-swapbody", "wrk")
    assert cell["status"] == "invalid", cell["reason"]
    assert "during the warm-up" in cell["reason"], cell["reason"]


@pytest.mark.answers_only  # wrong answers under a second of light load: beside the measuring tests
def test_same_length_wrong_bodies_under_load_are_invalid(fake_bench, oha):
    """Sizes pass (each response's and the mean), the checked requests before and after the
    load would pass (each on a fresh connection): only the bodies sampled in the window tell (the
    aggregate's wrong id: tests/test_body_checks.py)."""
    longer = [a.replace("duration-s=1", "duration-s=2") for a in LOAD]  # 3 samples
    res = fake_bench("run", "http-hello", "--contender", "fake-server-swapbody", *longer,
                     "--param", "loadgen=oha")
    assert res.code == 0, res.stderr
    cell = fake_bench.last()["cells"][0]
    assert cell["status"] == "invalid", cell["reason"]
    assert "responses the harness sampled under load were wrong" in cell["reason"], cell["reason"]
    server = cell["runs"][0]["server"]
    sampled = server["under_load"]["sampled"]
    assert sampled["wrong"] >= 1 and sampled["checked"] >= sampled["wrong"], sampled
    assert server["under_load"]["bytes_per_response"]["each_body"]["outside"] == 0
    assert server["verification"][0]["status"] == 200


@pytest.mark.answers_only  # wrong answers under a second of light load: beside the measuring tests
def test_one_empty_body_in_a_hundred_is_invalid_though_the_mean_passes(fake_bench, oha):
    cell = _cell(fake_bench, "http-hello", "fake-server-emptysome", "--param", "loadgen=oha")
    assert cell["status"] == "invalid", cell["reason"]
    assert "ok responses under load had a body outside the 200-200 bytes" in cell["reason"], \
        cell["reason"]
    run = cell["runs"][0]
    record = run["server"]["under_load"]["bytes_per_response"]
    low, high = record["range"]
    assert low <= run["load"]["bytes_per_response"] <= high, record  # the mean alone passes
    assert record["each_body"]["outside"] == run["load"]["ok_body_sizes"]["0"] > 0


def test_a_body_gone_wrong_by_the_end_of_the_load_is_invalid(fake_bench):
    """The body turns after 300 responses, inside the window: the harness's samples see it
    there, or the checked request after the load does, whichever comes first."""
    cell = _cell(fake_bench, "http-hello", "fake-server-rotbody")
    assert cell["status"] == "invalid"
    assert ("responses the harness sampled under load were wrong" in cell["reason"]
            or "checked request after the load" in cell["reason"]), cell["reason"]


@pytest.mark.answers_only  # wrong answers under a second of light load: beside the measuring tests
def test_statuses_other_than_200_are_errors_under_oha(fake_bench, oha):
    cell = _cell(fake_bench, "http-hello", "fake-server-created", "--param", "loadgen=oha")
    load = cell["runs"][0]["load"]
    assert load["errors"]["status"] > 0 and load["ok_requests"] <= 8, load
    assert load["requests_per_s"] * load["duration_s"] == pytest.approx(load["ok_requests"])


# -- downstream work under load ----------------------------------------------------------------


def test_three_calls_to_delay_0_and_in_process_sleeps_are_invalid(fake_bench):
    cell = _cell(fake_bench, "http-aggregate", "fake-server-delay0", *AGGREGATE,
                 "--param", "downstream=http")
    assert cell["status"] == "invalid"
    assert "milliseconds of downstream delay" in cell["reason"], cell["reason"]


def test_one_downstream_call_shared_by_concurrent_requests_is_invalid(fake_bench):
    cell = _cell(fake_bench, "http-aggregate", "fake-server-coalesce", *AGGREGATE,
                 "--param", "downstream=http")
    assert cell["status"] == "invalid"
    assert "downstream calls in the measured window" in cell["reason"], cell["reason"]


# -- the latency floor, whatever the generator -------------------------------------------------


def test_skipping_the_waits_under_wrk_load_is_invalid(fake_bench):
    cell = _cell(fake_bench, "http-aggregate", "fake-server-fastlater", *AGGREGATE)
    assert cell["status"] == "invalid"
    assert "below the latency floor" in cell["reason"], cell["reason"]


def test_oha_runs_get_the_latency_floor_check_too(fake_bench, oha):
    cell = _cell(fake_bench, "http-aggregate", "fake-server-fastlater", *AGGREGATE,
                 "--param", "loadgen=oha", "--param", "rate=200")
    assert cell["status"] == "invalid"
    assert "below the latency floor" in cell["reason"], cell["reason"]


# -- what the runtime saw, what the kernel saw -------------------------------------------------


def test_a_runtime_claiming_other_cpus_than_it_was_pinned_to_warns(fake_bench):
    cell = _cell(fake_bench, "http-hello", "fake-server-cpus")
    assert cell["status"] == "ok", cell["reason"]
    pinned = cell["runs"][0]["server"]["cpus"]  # the fake claims two more than it can use
    found = [w for w in cell["warnings"] if "ready line" in w]
    assert found, cell["warnings"]
    assert f"{len(pinned) + 2} CPUs" in found[0] and str(pinned) in found[0], found[0]


def test_listen_queue_overflows_are_recorded_and_warned_about(fake_bench):
    # a generator per window (wrk) opens its connections inside the window; one continuous
    # load opens them before it (tests/test_continuous_load.py)
    res = fake_bench("run", "http-hello", "--contender", "fake-server-backlog", "--param",
                     "connections=64", "--param", "duration-s=2", "--param", "warmup-s=0",
                     "--param", "loadgen=wrk", "--runs", "1")
    assert res.code == 0, res.stderr
    cell = fake_bench.last()["cells"][0]
    kernel = cell["runs"][0]["server"]["kernel"]
    assert kernel["ListenOverflows"] > 0, kernel
    assert any("ListenOverflows" in w for w in cell["warnings"]), cell["warnings"]


def test_kernel_counters_are_read_by_name_and_only_unexplained_moves_warn(tmp_path):
    from concbench.server import kernel_counters

    net = tmp_path / "proc" / "net"
    net.mkdir(parents=True)

    def write(overflows: int, retrans: int, resets: int) -> None:
        (net / "netstat").write_text(
            "TcpExt: SyncookiesSent ListenOverflows ListenDrops\n"
            f"TcpExt: 3 {overflows} {overflows}\nIpExt: InNoRoutes\nIpExt: 9\n")
        (net / "snmp").write_text(
            "Ip: Forwarding DefaultTTL\nIp: 1 64\n"
            "Tcp: ActiveOpens EstabResets RetransSegs OutRsts\n"
            f"Tcp: 100 {resets} {retrans} {resets}\n")

    write(5, 10, 20)
    before = kernel_counters.read(tmp_path)
    assert before == {"ListenOverflows": 5, "ListenDrops": 5, "RetransSegs": 10,
                      "OutRsts": 20, "EstabResets": 20}
    write(5, 10, 36)  # 16 resets: 8 connections closed at the window's end, both ends
    window = kernel_counters.delta(before, kernel_counters.read(tmp_path))
    assert window == {**{k: 0 for k in before}, "OutRsts": 16, "EstabResets": 16}
    assert kernel_counters.warning(window, connections=8) is None
    assert "OutRsts 16" in kernel_counters.warning(window, connections=7)
    write(6, 11, 20)
    moved = kernel_counters.delta(before, kernel_counters.read(tmp_path))
    text = kernel_counters.warning(moved, connections=8)
    assert "ListenOverflows 1" in text and "RetransSegs 1" in text and "OutRsts" not in text
    (net / "snmp").write_text("Ip: Forwarding\nIp: 1\n")  # no Tcp section: nothing recorded
    assert kernel_counters.read(tmp_path) is None


def test_after_the_load_more_downstream_calls_pass_and_fewer_do_not():
    """The checked request after a load may share the backend's count with the last calls of
    a load request the server was still finishing: more is not a problem there, fewer is."""
    from concbench.server.verify import downstream_problems

    assert downstream_problems(3, 100, 3, 100, exact=True) == []
    assert downstream_problems(5, 180, 3, 100, exact=False) == []
    assert len(downstream_problems(5, 180, 3, 100, exact=True)) == 2
    assert "expected at least 3" in downstream_problems(2, 100, 3, 100, exact=False)[0]
    assert "expected at least 100" in downstream_problems(3, 60, 3, 100, exact=False)[0]
