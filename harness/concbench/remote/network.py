"""The network between the roles, measured once per plan before any load: round-trip time
(one byte echoed over TCP, through whatever sits between, as requests will see it) and the
link's throughput (iperf3, Debian's package)."""

from __future__ import annotations

import json
import statistics
import time
from typing import Any

from concbench.remote.agent_session import Background, call
from concbench.remote.ssh import HostError
from concbench.server.sites import Site

ROUND_TRIPS = 50
IPERF_SECONDS = 2


def round_trip(server: Site, client: Site) -> dict[str, Any]:
    """Median and spread of `ROUND_TRIPS` echoes from `client` to an echo on `server`'s port."""
    try:
        port = server.free_port()
        with Background(server.remote, "echo", {"bind": server.bind, "port": port}):
            host, reach_port = server.reach(port)
            got = call(client.remote, "rtt", {"host": host, "port": reach_port,
                                              "count": ROUND_TRIPS}, timeout_s=60)
    except HostError as err:
        return {"from": client.name, "to": server.name, "error": str(err)}
    if "error" in got or not got.get("rtt_ms"):
        return {"from": client.name, "to": server.name, "error": got.get("error", "no echo")}
    samples = sorted(got["rtt_ms"])
    return {"from": client.name, "to": server.name, "target": f"{host}:{reach_port}",
            "connect_ms": round(got["connect_ms"], 3),
            "rtt_ms": round(statistics.median(samples), 3), "rtt_min_ms": round(samples[0], 3),
            "rtt_p90_ms": round(samples[int(0.9 * (len(samples) - 1))], 3), "n": len(samples)}


def throughput(server: Site, client: Site) -> dict[str, Any]:
    """iperf3 from client to server for IPERF_SECONDS: bits per second received."""
    where = {"from": client.name, "to": server.name}
    try:
        port = server.free_port()
        host, reach_port = server.reach(port)
        argv = ["iperf3", "-s", "-1", "-B", server.bind, "-p", str(port)]
        with Background(server.remote, "exec", {"argv": argv, "env": {}, "timeout_s": 60},
                        wait_ready=False) as iperf_server:
            got: dict[str, Any] = {}
            for _ in range(20):  # until the server listens
                time.sleep(0.25)
                got = call(client.remote, "exec", {
                    "argv": ["iperf3", "-c", host, "-p", str(reach_port), "-t",
                             str(IPERF_SECONDS), "-J"], "env": {}, "timeout_s": 60},
                    timeout_s=90)
                if got.get("returncode") == 0:
                    break
            iperf_server.answer(30)
    except HostError as err:
        return {**where, "error": str(err)}
    if got.get("returncode") != 0:
        return {**where, "error": "iperf3 failed: " + (got.get("stderr") or got.get("stdout")
                                                       or got.get("error") or "")[-300:]}
    report = json.loads(got["stdout"])
    bps = report["end"]["sum_received"]["bits_per_second"]
    return {**where, "bits_per_second": bps, "seconds": IPERF_SECONDS,
            "tool": report.get("start", {}).get("version")}
