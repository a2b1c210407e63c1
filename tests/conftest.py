"""Shared fixtures, and the tiers every test is sorted into.

Tiers (markers, see pytest.ini): a test's tier is the slowest tier of the fixtures it uses
(TIER_OF_FIXTURE), or the one it is marked with if that is slower; a test using none of them is
`fast`. So a new test lands in its tier by itself: one that runs fake contenders asks for
`fake_bench` and is `middle`, one that needs the real contenders asks for `real_bench` and is
`slow`. Each tier has its own time limit (pytest-timeout). `./concbench test -m fast` runs the
fast tier; `./concbench test` runs everything.

Two at once (pytest-xdist, pytest.ini; `-n 0` for one process): the tests that measure
(the slow tier, and the modules marked `measures`: timings, CPU, throttling, servers under
load) run one after another in one worker, as one unit of work (tests/measuring_group.py),
the longest, scheduled first; every other test runs beside them in the other worker, so no
two measuring tests share the machine. A test marked `answers_only` (real contenders whose
answers alone are checked) runs beside them too, whatever its tier. A test marked `alone`
(tests/alone.py) is in the measuring unit, and runs while the other worker runs nothing.

Under CONCBENCH_STRICT (CI) a skipped test is a failure: CI installs what the tests need, so a
skip there means a test silently did not run.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

import psutil
import pytest

import alone
import measuring_group

REPO = Path(__file__).resolve().parents[1]
FAKE = Path(__file__).resolve().parent / "fake"
sys.path.insert(0, str(REPO / "harness"))

STRICT = bool(os.environ.get("CONCBENCH_STRICT"))
TIERS = ("fast", "middle", "slow")
TIER_OF_FIXTURE = {
    "cli": "fast",
    "fake_bench": "middle", "bench_factory": "middle", "processes": "middle",
    "chromium": "middle", "postgres_url": "middle", "full_disk": "middle", "wrk": "middle",
    "real_bench": "slow", "verified_servers": "slow", "verified_batch": "slow", "netns": "slow",
    "oha": "slow",
}
TIMEOUT_S = {"fast": 60, "middle": 300, "slow": 3600}
"""Per test, set-up included: slow covers building every contender on a fresh machine."""


def _tier(item: pytest.Item) -> str:
    found = {TIER_OF_FIXTURE[f] for f in getattr(item, "fixturenames", ())
             if f in TIER_OF_FIXTURE}
    found |= {m.name for m in item.iter_markers() if m.name in TIERS}
    return max(found, key=TIERS.index, default="fast")


MEASURING_FIXTURES = frozenset({"wrk"})
"""Fixtures that make a test measuring by themselves (a server under load)."""


def measures(item: pytest.Item) -> bool:
    """Whether the test is measuring (run with the others one at a time); a fast test of a marked
    module runs no process, so it measures nothing, and one marked answers_only asserts on
    answers alone, which a busy machine cannot change."""
    tier = _tier(item)
    if item.get_closest_marker("answers_only") is not None:
        return False
    return tier == "slow" or tier != "fast" and (
        item.get_closest_marker("measures") is not None
        or item.get_closest_marker("alone") is not None
        or not MEASURING_FIXTURES.isdisjoint(getattr(item, "fixturenames", ())))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        tier = _tier(item)
        item.add_marker(getattr(pytest.mark, tier))
        item.add_marker(pytest.mark.timeout(TIMEOUT_S[tier]))  # an explicit one comes first
    # the answers_only tests last in the other worker's queue: the measuring unit begins with
    # verify's server half on both CPUs, and the batch half (a CPU's worth for minutes) would
    # otherwise run beside it, on the measuring tests' serial path
    items.sort(key=lambda item: item.get_closest_marker("answers_only") is not None)
    measuring_group.record(item.nodeid for item in items if measures(item))


def _xdist_controller(config: pytest.Config) -> bool:
    return bool(config.getoption("numprocesses", None)) and not hasattr(config, "workerinput")


def pytest_configure(config: pytest.Config) -> None:
    if _xdist_controller(config):
        measuring_group.make_folder()


def pytest_unconfigure(config: pytest.Config) -> None:
    if _xdist_controller(config):
        measuring_group.remove_folder()


@pytest.hookimpl(tryfirst=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log) -> object:
    return measuring_group.MeasuringGroupScheduling(config, log)


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_runtest_protocol(item: pytest.Item) -> Iterator[None]:
    """The machine shared with the other worker's tests, or held by an `alone` test
    (tests/alone.py); outermost, so pytest-timeout's clock starts once it is held."""
    with alone.machine(item.get_closest_marker("alone") is not None):
        yield


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo) -> Iterator[None]:
    outcome = yield
    report = outcome.get_result()
    if STRICT and report.skipped and not hasattr(report, "wasxfail"):
        reason = report.longrepr[-1] if isinstance(report.longrepr, tuple) else report.longrepr
        report.outcome = "failed"
        report.longrepr = (f"skipped under CONCBENCH_STRICT, where every test must run "
                           f"(.ci/run installs what the tests need): {reason}")


@dataclass
class Result:
    code: int
    stdout: str
    stderr: str


class Concbench:
    """Runs `python -m concbench` with an environment of its own."""

    timeout_s = 120.0
    """Per command: a fake contender's run takes seconds, so a hang fails its test soon."""

    def __init__(self, root: Path, contenders: Path):
        self.root = root
        self.env = {**os.environ, "PYTHONPATH": str(REPO / "harness"),
                    "CONCBENCH_CONTENDERS": str(contenders),
                    "CONCBENCH_RESULTS": str(root / "results"),
                    "CONCBENCH_CACHE": str(root / "cache"),
                    "CONCBENCH_STORE": str(root / "results" / "store.sqlite")}
        _share_tools(root / "cache")

    def __call__(self, *args: str, timeout: float | None = None) -> Result:
        done = subprocess.run([sys.executable, "-m", "concbench", *args], env=self.env,
                              capture_output=True, text=True, timeout=timeout or self.timeout_s)
        return Result(done.returncode, done.stdout, done.stderr)

    def results(self) -> list[dict]:
        """Every results.json written, oldest first."""
        found = sorted((self.root / "results").glob("*/results.json"))
        return [json.loads(p.read_text()) for p in found]

    def last(self) -> dict:
        return self.results()[-1]


def _share_tools(cache: Path) -> None:
    """A bench's own cache gets the repo's load generators and profilers (cache/tools, where
    cargo builds oha and inferno), so no test builds them again: the first that needs one
    builds it there, as a user's first run does (.ci/run builds them up front)."""
    shared = REPO / ".concbench-cache" / "tools"
    shared.mkdir(parents=True, exist_ok=True)
    cache.mkdir(parents=True, exist_ok=True)
    link = cache / "tools"
    if not link.exists():
        link.symlink_to(shared, target_is_directory=True)


class InProcess(Concbench):
    """The same command line run inside pytest through click's test runner: for commands that
    run no contender (bad input, compare, report, history), where a new interpreter would
    only add its start-up. concbench.cli.main is called as the launcher calls it, so its
    exit codes and messages are the real ones; the signal handlers it installs are put back."""

    def __call__(self, *args: str, timeout: float | None = None) -> Result:
        from click.testing import CliRunner

        from concbench import cli

        handlers = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM,
                                                     signal.SIGHUP)}
        overrides = {k: v for k, v in self.env.items() if os.environ.get(k) != v}
        runner = CliRunner()
        code = 0
        with runner.isolation(env=overrides) as (out, err, _):
            old_argv, sys.argv = sys.argv, ["concbench", *args]
            try:
                cli.main()
            except SystemExit as exit_:
                code = exit_.code if isinstance(exit_.code, int) else 1
            finally:
                sys.argv = old_argv
                for signum, handler in handlers.items():
                    signal.signal(signum, handler)
            stdout, stderr = out.getvalue().decode(), err.getvalue().decode()
        return Result(code, stdout, stderr)


def _fake_contenders(root: Path) -> Path:
    contenders = root / "contenders" / "fake"
    shutil.copytree(FAKE, contenders)
    return contenders.parent


@pytest.fixture
def fake_bench(tmp_path: Path) -> Concbench:
    """concbench in a subprocess with the fake contenders (tests/fake) and its own results."""
    return Concbench(tmp_path, _fake_contenders(tmp_path))


@pytest.fixture
def cli(tmp_path: Path) -> InProcess:
    """concbench's command line in this process, with the fake contenders: fast, for what
    runs no contender."""
    return InProcess(tmp_path, _fake_contenders(tmp_path))


@pytest.fixture(scope="module")
def bench_factory(tmp_path_factory) -> Callable[[str], Concbench]:
    """Makes subprocess benches with the fake contenders for module-scoped fixtures."""
    def make(name: str) -> Concbench:
        root = tmp_path_factory.mktemp(name)
        return Concbench(root, _fake_contenders(root))
    return make


@pytest.fixture
def processes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """For a test that starts real processes itself: none of them may outlive it, and what
    they write to their temporary directory stays in the test's own (TMPDIR, as the harness
    gives each contender process one: proc/private_tmp.py)."""
    scratch = tmp_path / "processes-tmp"
    scratch.mkdir()
    monkeypatch.setenv("TMPDIR", str(scratch))
    me = psutil.Process()
    before = {p.pid for p in me.children(recursive=True)}
    yield
    left = [p for p in me.children(recursive=True) if p.pid not in before]
    gone, alive = psutil.wait_procs(left, timeout=5)
    assert not alive, f"processes outlived the test: {[p.pid for p in alive]}"


@pytest.fixture(scope="session")
def real_bench(tmp_path_factory) -> Concbench:
    """The real contenders, built once per test session (cache under the repo, as users get)."""
    root = tmp_path_factory.mktemp("real")
    bench = Concbench(root, REPO / "contenders")
    bench.env["CONCBENCH_CACHE"] = str(REPO / ".concbench-cache")
    bench.timeout_s = 1800.0  # a first use may build a toolchain
    return bench


@pytest.fixture(scope="session")
def jdk25() -> Path:
    """The JDK the JVM contenders run on, found as the harness finds it (toolchains)."""
    from concbench import toolchains

    home = toolchains.find_jdk(25)
    if home is None:
        pytest.skip("no JDK >= 25 (the JVM contenders' JDK): " + toolchains._HINTS["jdk"]
                    .format(n=25))
    return home


@pytest.fixture(scope="session")
def wrk() -> str:
    """The load generators of the server tests (oha, the default, and wrk), installed or built
    as the harness does it; returns wrk's path."""
    from concbench import tools

    for name in ("oha", "wrk"):
        reason = tools.ensure(name)
        if reason is not None:
            pytest.skip(f"{name} is needed: {reason}")
    return str(tools.path("wrk"))


@pytest.fixture(scope="session")
def oha() -> Path:
    """The open-loop load generator, built with cargo into the repo's cache as the harness
    builds it on first use (about 7 minutes on a fresh machine: a slow-tier fixture)."""
    from concbench import tools

    reason = tools.ensure("oha")
    if reason is not None:
        pytest.skip(f"oha is needed: {reason}")
    return tools.path("oha")


@pytest.fixture(scope="session")
def chromium() -> str:
    """Headless Chromium for the report's browser tests: Debian's, installed when missing
    and we are root (as the harness installs its tools)."""
    from concbench import tools

    def found() -> str | None:
        return shutil.which("chromium") or shutil.which("chromium-browser")

    if found() is None:
        tools.install_package("chromium", "chromium", lambda _m: None)
    if found() is None:
        pytest.skip("chromium is not installed and could not be (apt-get install -y chromium)")
    return str(found())


@pytest.fixture(scope="session")
def netns():
    """The network-namespace hosts can be made here (root, iproute2, sshd, rsync and iperf3,
    installed on first use): the module that makes them (tests/netns_hosts.py)."""
    import netns_hosts

    reason = netns_hosts.skip_reason()
    if reason is not None:
        pytest.skip(reason)
    return netns_hosts


@pytest.fixture(scope="session")
def toxiproxy(netns) -> None:
    """Toxiproxy (the delaying proxy of tests/delay_proxy.py), built with Go on first use."""
    import delay_proxy

    try:
        delay_proxy.toxiproxy_bins()
    except netns.NetnsError as err:
        pytest.skip(f"Toxiproxy is needed: {err}")


# Property-based tests explore the same examples on every run, so CI is reproducible.
from hypothesis import settings as _hypothesis_settings  # noqa: E402

_hypothesis_settings.register_profile("concbench", derandomize=True, database=None)
_hypothesis_settings.load_profile("concbench")
