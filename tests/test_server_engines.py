"""The server engine choices of issue 26 on the real contenders: kotlin-coroutines serves on
Ktor's Netty engine and kotlin-coroutines-cio on CIO; spring-webflux sizes Reactor Netty's event
loops to the server's CPUs and spring-webflux-stock keeps max(CPUs, 4); http-aggregate's JSON
the frameworks' usual way (Ktor's ContentNegotiation, Spring MVC's returned record) with the
hand-built forms as variants; an unknown choice is bad input (exit 2)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

pytestmark = pytest.mark.answers_only  # what the ready line says: beside the measuring tests

LOAD = ["--param", "connections=8", "--param", "duration-s=1", "--param", "warmup-s=0",
        "--runs", "1", "--server-cpus", "0"]
REPO = Path(__file__).resolve().parent.parent


AGGREGATE = ["--param", "base-ms=1", "--param", "detail-ms=1", "--param", "extra-ms=1",
             "--param", "downstream=inproc"]


def _runtimes(real_bench, *contenders: str, workload: str = "http-hello") -> dict[str, dict]:
    args = [a for c in contenders for a in ("--contender", c)]
    res = real_bench("run", workload, *args, *LOAD,
                     *(AGGREGATE if workload == "http-aggregate" else []))
    assert res.code == 0, res.stderr[-2000:]
    cells = {c["contender"]: c for c in real_bench.last()["cells"]}
    for name, cell in cells.items():
        assert cell["status"] == "ok", (name, cell["reason"])
    return {name: cell["runs"][0]["server"]["runtime"] for name, cell in cells.items()}


def test_ktor_engine_netty_by_default_cio_as_variant(real_bench):
    rt = _runtimes(real_bench, "kotlin-coroutines", "kotlin-coroutines-cio")
    netty, cio = rt["kotlin-coroutines"], rt["kotlin-coroutines-cio"]
    assert netty["engine"] == "ktor-netty" and netty["transport"] == "epoll"
    # pinned to one CPU: one accepting loop, one I/O loop, one call loop
    assert (netty["cpus"], netty["connection_group"], netty["worker_group"], netty["call_group"]) == (1, 1, 1, 1)
    assert cio["engine"] == "ktor-cio" and cio["dispatcher"] == "Dispatchers.IO"


def test_webflux_event_loops_sized_to_cpus_stock_as_variant(real_bench):
    rt = _runtimes(real_bench, "spring-webflux", "spring-webflux-stock")
    sized, stock = rt["spring-webflux"], rt["spring-webflux-stock"]
    assert sized["cpus"] == 1 and sized["threads"]["event_loops"] == 1
    assert sized["threads"]["event_loops_sizing"] == "cpus"
    assert stock["threads"]["event_loops"] == 4 and stock["threads"]["event_loops_sizing"] == "stock"


def test_json_the_frameworks_way_by_default_hand_built_as_variants(real_bench):
    """Every run verifies the body and its Content-Length (the contract), so each form's
    answers pass; the ready line says which form served them."""
    rt = _runtimes(real_bench, "kotlin-coroutines", "kotlin-coroutines-json-text", "spring-mvc",
                   "spring-mvc-json-bytes", "spring-mvc-boot3", workload="http-aggregate")
    assert {name: r["json"] for name, r in rt.items()} == {
        "kotlin-coroutines": "negotiated", "kotlin-coroutines-json-text": "text",
        "spring-mvc": "record", "spring-mvc-json-bytes": "bytes", "spring-mvc-boot3": "bytes"}


def test_unknown_engine_choices_exit_2(real_bench, jdk25):
    real_bench("build", "--contender", "kotlin-coroutines", "--contender", "spring-webflux",
               "--contender", "spring-mvc")
    java = str(jdk25 / "bin" / "java")
    cases = [
        ([java, "-Dconcbench.ktor.engine=undertow", "-jar", "target/concbench-kotlin.jar", "http-hello",
          "--port=1", "--bind=127.0.0.1", "--pool-size=0"], REPO / "contenders/kotlin", "netty or cio"),
        ([java, "-Dconcbench.webflux.loops=8", "-jar", "webflux/target/concbench-spring-webflux.jar",
          "webflux", "http-hello", "--port=1", "--bind=127.0.0.1", "--pool-size=0"],
         REPO / "contenders/spring", "cpus or stock"),
        ([java, "-Dconcbench.ktor.json=xml", "-jar", "target/concbench-kotlin.jar", "http-aggregate",
          "--port=1", "--bind=127.0.0.1", "--pool-size=0", "--base-ms=1", "--detail-ms=1",
          "--extra-ms=1", "--downstream=inproc", "--backend-host=127.0.0.1", "--backend-port=0"],
         REPO / "contenders/kotlin", "negotiated or text"),
        ([java, "-Dconcbench.json=xml", "-jar", "mvc/target/concbench-spring-mvc.jar", "sequential",
          "http-aggregate", "--port=1"], REPO / "contenders/spring", "record or bytes"),
    ]
    for cmd, cwd, message in cases:
        proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=60)  # exits at once when the choice is checked
        assert proc.returncode == 2, proc.stderr[-2000:]
        assert message in proc.stderr and "Exception" not in proc.stderr
