"""One window of load from several client hosts at once (`--client-host` given several
times): the connections and the open-loop rate split over them (server.client_split), every
generator armed on its host and started on one word, the start skew measured, one window of
the harness's clock cut out of every client's log and the logs merged exactly
(server.client_merge).

Each client runs oha for a lead-in, the window and a tail, so the window opens after every
client's connections are open and ends before any client stops; the clients stop together
(same length, started within the skew). A client that fails (its oha killed, its host lost)
fails the run with its reason; the others' figures of the window are still recorded, and
every client's log of the measured window is kept beside the run's samples.
"""

from __future__ import annotations

import concurrent.futures
import gzip
import signal
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Protocol

from concbench.server import client_split as split
from concbench.server.client_merge import (ClientWindow, GeneratorRun, cut, merged_load,
                                           whole_log)
from concbench.server.loadgen import LoadError, LoadResult
from concbench.server.request import ServerRequest

Failure = tuple[str, str]
POLL_S = 0.05


class Edges(Protocol):
    def begin(self) -> None: ...

    def end(self) -> None: ...


class Around(Protocol):
    """Read before the clients start and after they stopped (server.rate_point.Around)."""

    def begin(self) -> None: ...

    def end(self, log: Any) -> None: ...


class ClientSession(Protocol):
    """One armed generator on a client host (remote.load_session.LoadSession)."""

    host: str

    def arm(self) -> None: ...

    def go(self) -> float: ...

    def wait_started(self, timeout_s: float = 30.0) -> float: ...

    def ended(self) -> bool: ...

    def finish(self) -> GeneratorRun: ...

    def close(self) -> None: ...


class Run(Protocol):
    """What of server.run's run state this module uses."""

    req: ServerRequest
    target: tuple[str, int]
    warnings: list[str]
    clients: "SplitWindow | None"

    def _died(self, proc: Any, phase: str) -> Failure | None: ...


@dataclass
class SplitWindow:
    """The last window of a split load: its record, and every client's log (the measured
    window's are written beside the run's samples)."""

    phase: str
    record: dict[str, Any] = field(default_factory=dict)
    logs: dict[str, bytes] = field(default_factory=dict)

    def write_logs(self, samples_path: Path | None) -> dict[str, str]:
        """Each client's log as gzipped CSV next to the samples; host → path relative to
        the run folder."""
        if samples_path is None or not self.logs:
            return {}
        samples_path.parent.mkdir(parents=True, exist_ok=True)
        found = {}
        for host, log in self.logs.items():
            path = samples_path.with_name(f"{samples_path.stem}.client-{host}.csv.gz")
            path.write_bytes(gzip.compress(log))
            found[host] = str(path.relative_to(path.parents[1]))
        return found


def applies(req: ServerRequest) -> bool:
    return len(req.where.clients) > 1


def refusal(params: dict[str, Any], clients: int) -> str | None:
    """Why a cell cannot split its load over `clients` hosts (bad input), or None."""
    if clients < 2:
        return None
    if params.get("loadgen") != "oha":
        return (f"a load split over {clients} client hosts needs --param loadgen=oha: their "
                "latencies are merged from oha's log of every response, and wrk gives "
                "percentiles only, which cannot be merged")
    if params.get("think-ms"):
        return "think-ms paces wrk's connections; a load split over several clients runs oha"
    if int(params.get("connections") or 0) < clients:
        return f"connections={params.get('connections')} cannot be split over {clients} clients"
    return None


def window(run: Run, proc: Any, seconds: float, phase: str, rate: int | None,
           edges: Edges | None = None, around: Around | None = None
           ) -> tuple[LoadResult | None, Failure | None]:
    """One window of `seconds` at `rate` (None: the cell's) split over the clients; `edges`
    begin and end at the window's edges, `around` before the clients start and after they
    stopped (given every client's log as one). (the window's load, the run's failure)."""
    spec = run.req.load_spec(run.target, seconds, rate)
    try:
        parts = split.shares(spec, int(run.req.params.get("threads") or 0),
                             run.req.where.clients)
    except LoadError as err:
        return None, ("invalid", str(err))
    lead = split.lead_in_s(parts)
    total = split.run_seconds(spec, seconds, lead)
    argvs = [split.command(p, spec, total) for p in parts]
    alive: Callable[[], Failure | None] = lambda: run._died(proc, phase)
    sessions: list[ClientSession] = []
    try:
        if around is not None:
            around.begin()
        sessions = _open(parts, argvs, total)
        starts = _start(sessions)
        skew = max(starts) - min(starts)
        t0 = max(starts) + lead
        t1 = t0 + seconds
        if skew > split.START_SKEW_LIMIT_S:
            return None, ("invalid", f"the {len(parts)} clients' first requests lay "
                                     f"{skew * 1000:.0f} ms apart, more than the "
                                     f"{split.START_SKEW_LIMIT_S * 1000:.0f} ms allowed")
        failure = _hold(alive, t0) or _window(alive, t1, edges)
        if failure:
            return None, failure
        outcomes = _finish(sessions)
    except LoadError as err:
        return None, alive() or ("crash", f"the {phase} load over several clients failed: {err}")
    finally:
        for s in sessions:
            s.close()
    return _judge(run, phase, parts, outcomes, t0, t1, total, argvs[0], around)


def _open(parts: list[split.ClientShare], argvs: list[list[str]],
          total: int) -> list[ClientSession]:
    """Every client's session, armed (in parallel: each arms over its own SSH session)."""
    sessions = [p.site.load_session(a, total + 60) for p, a in zip(parts, argvs)]
    with concurrent.futures.ThreadPoolExecutor(len(sessions)) as pool:
        for f in [pool.submit(s.arm) for s in sessions]:
            try:
                f.result()
            except LoadError:
                for s in sessions:
                    s.close()
                raise
    return sessions


def _start(sessions: list[ClientSession]) -> list[float]:
    """The word to every client, one right after the other; when each sent its first
    request (the harness's clock)."""
    for s in sessions:
        s.go()
    return [s.wait_started() for s in sessions]


def _hold(alive: Callable[[], Failure | None], until: float) -> Failure | None:
    while True:
        failure = alive()
        left = until - time.perf_counter()
        if failure or left <= 0:
            return failure
        time.sleep(min(POLL_S, left))


def _window(alive: Callable[[], Failure | None], t1: float,
            edges: Edges | None) -> Failure | None:
    if edges is not None:
        edges.begin()
    failure = _hold(alive, t1)
    if edges is not None:
        edges.end()
    return failure


def _finish(sessions: list[ClientSession]) -> list[GeneratorRun | LoadError]:
    """Every client's run, or why it gave none (a failed client does not stop the others:
    what they measured is kept)."""
    found: list[GeneratorRun | LoadError] = []
    for s in sessions:
        try:
            found.append(s.finish())
        except LoadError as err:
            found.append(err)
    return found


def _when(run: GeneratorRun | None, t0: float, t1: float) -> str:
    if run is None:
        return ""
    if run.ended_s < t0:
        return f" {t0 - run.ended_s:.1f} s before the window"
    if run.ended_s < t1:
        return f" {run.ended_s - t0:.1f} s into the window of {t1 - t0:g} s"
    return ""


def _signal_name(text: str) -> str:
    """'oha ended by signal 9' → 'oha ended by signal 9 (SIGKILL)'."""
    head, _, number = text.rpartition(" ")
    try:
        return f"{text} ({signal.Signals(int(number)).name})"
    except ValueError:
        return text


def _keep(run: Run, record: SplitWindow, failed: bool) -> None:
    """The window the run records: the measured one, unless a later window failed (a window
    after it, for system calls, does not replace it)."""
    kept = run.clients
    if failed or kept is None or kept.phase != "measured" or record.phase == "measured":
        run.clients = record


def _judge(run: Run, phase: str, parts: list[split.ClientShare],
           outcomes: list[GeneratorRun | LoadError], t0: float, t1: float, total: int,
           command: list[str], around: Around | None = None
           ) -> tuple[LoadResult | None, Failure | None]:
    """The merged load, or the first failed client's failure with the others' figures
    recorded."""
    problems: list[str] = []
    windows: list[ClientWindow] = []
    for part, got in zip(parts, outcomes):
        why = str(got) if isinstance(got, LoadError) else got.failure()
        if why is not None:
            ran = got if isinstance(got, GeneratorRun) else None
            problems.append(f"the generator on client host {part.host} failed"
                            f"{_when(ran, t0, t1)}: {_signal_name(why)}")
            continue
        assert isinstance(got, GeneratorRun)
        windows.append(cut(part, got, t0, t1, total))
    record = SplitWindow(phase, logs={w.share.host: w.run.log for w in windows})
    load = merged_load(windows, t0, t1, command) if windows else None
    record.record = {**(load.notes["clients"] if load else {"count": len(parts),
                                                             "generators": []}),
                     "phase": phase, "failed": problems or None}
    _keep(run, record, bool(problems))
    if load is None or problems:
        return None, ("crash", f"{phase} load: " + "; ".join(problems))
    for w in windows if phase == "measured" else ():
        if w.saturated:
            run.warnings.append(
                f"generator-bound: the generator on {w.share.host} used "
                f"{100 * w.cpu_share:.0f}% of its CPUs in the {phase} window, which is "
                "inconclusive there (its own queueing is in the latencies, its limit may be "
                "the rate's): add client hosts or CPUs")
    return load, None
