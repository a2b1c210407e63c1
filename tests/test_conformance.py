"""Conformance: every real contender × workload passes `verify` at small sizes.

One `build` (cached by source content) and `verify` of every contender, as a user runs them,
in two halves: the server workloads' cells with the measuring tests (a server cell loads its
server), the batch workloads' cells beside them (verify checks answers, not time); each
contender is a test of its own on each half's cells. A contender whose tool is
missing here is skipped, which under CONCBENCH_STRICT (CI) is a failure; a build that fails
for any other reason fails its contenders' tests.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections import defaultdict
from datetime import datetime
from pathlib import Path

import pytest

from concbench import manifest, paths, workloads
from concbench.build import Builder

ALL = manifest.discover(paths.REPO_ROOT / "contenders")
CONTENDERS = sorted(ALL)
TOOLCHAINS = sorted({c.toolchain.name for c in ALL.values()})
STRICT = bool(os.environ.get("CONCBENCH_STRICT"))
MISSING_TOOL = (" not found: ", "no JDK >= ")
"""How toolchains.resolve says a tool is missing (the only reason to skip, outside CI)."""


@pytest.fixture(scope="session")
def built(real_bench) -> dict[str, str | None]:
    """Each toolchain's problem after one `build` of everything (None: built, up to date)."""
    res = real_bench("build", timeout=3000)
    problems: dict[str, str | None] = {}
    for line in res.stdout.splitlines():
        name, _, rest = line.partition(": ")
        if name in TOOLCHAINS:
            problems[name] = None if rest.startswith(("up to date", "built in")) else rest
    assert sorted(problems) == TOOLCHAINS, res.stdout + res.stderr[-3000:]
    assert (res.code == 0) == all(p is None for p in problems.values()), res.stdout
    return problems


SERVER_WORKLOADS = tuple(sorted(n for n, w in workloads.WORKLOADS.items() if w.server))
BATCH_WORKLOADS = tuple(sorted(n for n, w in workloads.WORKLOADS.items() if not w.server))


def _verify(real_bench, wl_names: tuple[str, ...], shares: int, cpus: list[int] | None,
            tag: str) -> dict[str, list[dict]]:
    """The cells of `verify` of every contender on `wl_names`, by contender: `shares`
    `verify --share K/N` at once, each writing to a results folder of its own, share k pinned
    with taskset to the k-th of `cpus` (in turn; None: floating over every CPU); every
    process's exit code must agree with its cells."""
    runs = []
    for k in range(1, shares + 1):
        folder = real_bench.root / f"verify-{tag}-{k}"
        argv = [sys.executable, "-m", "concbench", "verify", f"--share={k}/{shares}",
                *(f"--workload={w}" for w in wl_names)]
        pin = ["taskset", "-c", str(cpus[(k - 1) % len(cpus)])] if cpus else []
        proc = subprocess.Popen([*pin, *argv],
                                env={**real_bench.env, "CONCBENCH_RESULTS": str(folder)},
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        runs.append((proc, folder))
    cells: dict[str, list[dict]] = defaultdict(list)
    for proc, folder in runs:
        out, err = proc.communicate(timeout=3000)
        assert "Traceback" not in err, err[-3000:]
        (found,) = folder.glob("*/results.json")
        doc = json.loads(found.read_text())
        assert doc["plan"]["name"] == "verify", doc["plan"]
        for cell in doc["cells"]:
            cells[cell["contender"]].append(cell)
        passed = all(c["status"] in ("ok", "unavailable") for c in doc["cells"])
        assert (proc.returncode == 0) == (passed and not (STRICT and any(
            c["status"] == "unavailable" for c in doc["cells"]))), out[-3000:]
    return cells


@pytest.fixture(scope="session")
def verified_servers(real_bench, built) -> dict[str, list[dict]]:
    """The server workloads' cells, two shares pinned to the two CPUs (at most), one each: a
    server cell loads its server, so these run with the measuring tests, one test at a time.
    Not floating, nor more shares than CPUs: with the other worker's tests beside them, a
    Spring Boot server just started then answered nothing within verify's 1 s window."""
    cpus = sorted(os.sched_getaffinity(0))[:2]
    return _verify(real_bench, SERVER_WORKLOADS, len(cpus), cpus, "servers")


@pytest.fixture(scope="session")
def verified_batch(real_bench, built) -> dict[str, list[dict]]:
    """The batch workloads' cells, one process pinned to the last CPU: verify checks
    answers, never time (a slow iteration passes, one faster than its waits allow fails), so
    these run beside the measuring tests (marker answers_only), off their serial path."""
    return _verify(real_bench, BATCH_WORKLOADS, 1, sorted(os.sched_getaffinity(0))[-1:],
                   "batch")


def _skip_if_tool_missing(problem: str | None, what: str) -> None:
    if problem is not None and any(m in problem for m in MISSING_TOOL) and not STRICT:
        pytest.skip(f"{what} unavailable here: {problem}")
    assert problem is None, f"{what}: {problem}"


def _planned(contender: str, wl_names: tuple[str, ...]) -> list[tuple[str, int]]:
    """(workload, cells) that verify plans for the contender among `wl_names`: a variant is
    verified where it differs from its base (manifest differs_on)."""
    found = ALL[contender]
    return sorted((w, len(workloads.get(w).verify_params)) for w in found.differs_on
                  if w in workloads.WORKLOADS and w in wl_names)


def _check_cells(contender: str, cells: list[dict], wl_names: tuple[str, ...]) -> None:
    by_workload: dict[str, int] = defaultdict(int)
    for cell in cells:
        by_workload[cell["workload"]] += 1
    assert sorted(by_workload.items()) == _planned(contender, wl_names)
    assert all(c["status"] == "ok" for c in cells), [(c["workload"], c["reason"]) for c in cells
                                                     if c["status"] != "ok"]
    assert all(len(c["runs"]) == 1 and c["runs"][0]["status"] == "ok" for c in cells)


@pytest.mark.parametrize("contender", [c for c in CONTENDERS if _planned(c, SERVER_WORKLOADS)])
def test_contender_passes_verify_as_a_server(built, verified_servers, contender):
    _skip_if_tool_missing(built[ALL[contender].toolchain.name], contender)
    _check_cells(contender, verified_servers[contender], SERVER_WORKLOADS)


@pytest.mark.answers_only
@pytest.mark.parametrize("contender", [c for c in CONTENDERS if _planned(c, BATCH_WORKLOADS)])
def test_contender_passes_verify_in_batch(built, verified_batch, contender):
    _skip_if_tool_missing(built[ALL[contender].toolchain.name], contender)
    _check_cells(contender, verified_batch[contender], BATCH_WORKLOADS)


def test_spring_servers_leave_no_tomcat_folders_in_tmp(built, verified_servers, real_bench):
    """Boot's Tomcat makes a base and a docbase folder named after its port on every start and
    never removes them; in the run's own temporary directory (proc.private_tmp, named to
    Tomcat by the MVC application's BootWeb.TempFolders) they go with the run, so none made
    since the verify began is left in /tmp."""
    _skip_if_tool_missing(built["spring"], "spring")
    began = min(datetime.fromisoformat(json.loads(f.read_text())["created_at"]).timestamp()
                for f in real_bench.root.glob("verify-servers-*/*/results.json"))
    ports = {int(run["server"]["target"].rpartition(":")[2])
             for name, cells in verified_servers.items() if ALL[name].toolchain.name == "spring"
             for cell in cells for run in cell["runs"] if run.get("server")}
    assert ports
    tmp = Path(tempfile.gettempdir())
    left = [str(f) for port in ports for pattern in (f"tomcat.{port}.*", f"tomcat-docbase.{port}.*")
            for f in tmp.glob(pattern) if f.stat().st_mtime >= began - 1]
    assert left == []


def test_every_contender_is_verified_somewhere():
    """No contender falls between the two halves: each plans cells in at least one."""
    assert [c for c in CONTENDERS if not (_planned(c, SERVER_WORKLOADS)
                                          or _planned(c, BATCH_WORKLOADS))] == []


OWN_CODE = sorted(n for n, c in ALL.items()
                  if c.variant_of is None or set(c.differs_on) == set(c.workloads))
"""Contenders with a code path of their own: variants that only size or tune their base's
(differs_on a part of their workloads) parse arguments with the base's code."""


@pytest.mark.answers_only
@pytest.mark.parametrize("contender", OWN_CODE)
def test_real_contenders_reject_bad_input(built, contender):
    """The contract: an unknown parameter is exit 2 with a message, for every contender with
    a code path of its own."""
    found = ALL[contender]
    _skip_if_tool_missing(built[found.toolchain.name], contender)
    # the tools as the build left them (cached: nothing is rebuilt), so that a variant on
    # another toolchain version runs with that version's tool
    tools = Builder(paths.cache_dir()).ensure(found.toolchain).tools
    assert tools is not None, found.toolchain.name
    argv = tools.expand(found.run)
    if not os.path.isabs(argv[0]) and (found.toolchain.folder / argv[0]).exists():
        argv[0] = str(found.toolchain.folder / argv[0])
    done = subprocess.run([*argv, found.workloads[0], "--no-such-param=1"],
                          cwd=found.toolchain.folder, env={**os.environ, **tools.env,
                                                           **found.env},
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert done.stderr.strip() and not done.stdout.strip()
