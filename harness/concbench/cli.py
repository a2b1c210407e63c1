"""The command line. It parses and wires; the work is done by the modules it calls."""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path
from typing import Any

import click

from concbench import inventory, manifest, outputs, paths, session, suites, ui
from concbench import verify as verify_mod
from concbench import workloads
from concbench.errors import UserError, unknown
from concbench.plan import (Plan, Settings, cells_for, parse_assignments, parse_size,
                            plan_from_dict, with_limits)
from concbench.precision import Precision
from concbench.proc import cgroups, private_tmp
from concbench.resultset import io
from concbench.server import placement


def _contenders() -> dict[str, manifest.Contender]:
    return manifest.discover(paths.contenders_dir())


def _exports(json_f: str | None, csv_f: str | None, md_f: str | None,
             html_f: str | None = None) -> dict[str, Path]:
    given = {"json": json_f, "csv": csv_f, "markdown": md_f, "html": html_f}
    targets = {k: Path(v) for k, v in given.items() if v}
    for target in targets.values():
        outputs.check_writable(target)  # before the run, not after an hour of it
    return targets


def _settings(opts: dict[str, Any], runs: int) -> dict[str, Any]:
    placement.choose(opts["server_cpus"], opts["client_cpus"])  # bad CPU lists fail first
    return {"runs": runs, "warmup": opts["warmup"] or 0, "iterations": opts["iterations"] or 1,
            "timeout_s": opts["timeout"] or 600.0,
            "rss_limit": parse_size(opts["mem_limit"]) if opts["mem_limit"] else None,
            "reference": opts["reference"], "server_cpus": opts["server_cpus"],
            "client_cpus": opts["client_cpus"], "profile": bool(opts["profile"]),
            "interleave": bool(opts["interleave"]), "hosts": _hosts(opts),
            "limits": _limits(opts), "precision": _precision(opts, runs)}


def _precision(opts: dict[str, Any], runs: int) -> Precision | None:
    if opts.get("precision") is None:
        if opts.get("max_runs") is not None:
            raise UserError("--max-runs caps --precision's extra runs: give --precision too")
        return None
    return Precision.parse(opts["precision"], opts.get("max_runs"), runs)


def _limits(opts: dict[str, Any]) -> cgroups.Limits:
    return cgroups.Limits.parse(opts["cpus"], opts["memory"], "--cpus", "--memory")


def _check_reference(plan: Plan) -> None:
    ref = plan.settings.reference
    names = {c.contender.name for c in plan.cells}
    if ref is not None and ref not in names:
        raise unknown("reference contender", ref, names)


_run_options = [
    click.option("--runs", type=click.IntRange(1, 1000), help="processes per cell"),
    click.option("--precision", metavar="PCT", help="after the planned runs, more processes "
                 "of a cell (interleaved) until its headline figure's 95% interval is within "
                 "± PCT of it, e.g. 3%, or --max-runs (docs/measurement.md, Statistics)"),
    click.option("--max-runs", type=click.IntRange(2, 1000), help="the most processes "
                 "--precision may run per cell (default 10)"),
    click.option("--warmup", type=click.IntRange(0, 1000), help="in-process warm-up iterations"),
    click.option("--iterations", type=click.IntRange(1, 1000),
                 help="measured iterations per process"),
    click.option("--timeout", type=click.FloatRange(0.1), help="seconds per run before it is "
                 "stopped (SIGTERM, then SIGKILL after 5 s) and recorded as timeout"),
    click.option("--mem-limit", help="stop a run whose RSS passes this size (e.g. 4G)"),
    click.option("--cpus", metavar="N", help="run each contender (for servers, the server; "
                 "not the load generator) in a cgroup with a CPU quota of N CPUs, e.g. 1 or "
                 "0.5 (per 100 ms period, on all CPUs, as docker --cpus); a suite cell with "
                 "its own keeps it"),
    click.option("--memory", metavar="SIZE", help="the same cgroup with a memory limit, e.g. "
                 "512M (no swap): a run the kernel's OOM killer ends is recorded as mem-limit"),
    click.option("--reference", help="contender the others are compared with (ratio column)"),
    click.option("--export-json", type=click.Path(dir_okay=False), help="also write JSON here"),
    click.option("--export-csv", type=click.Path(dir_okay=False), help="also write CSV here"),
    click.option("--export-markdown", type=click.Path(dir_okay=False),
                 help="also write Markdown here"),
    click.option("--export-html", type=click.Path(dir_okay=False),
                 help="also write the self-contained HTML report here"),
    click.option("--resume", metavar="RUN_ID", help="continue an interrupted run: its stored "
                 "plan is used and finished cells are kept"),
    click.option("--baseline", metavar="NAME", help="after the run, compare it with this saved "
                 "baseline (ratio, 95% CI, significance), as criterion does"),
    click.option("--save-baseline", metavar="NAME", help="after the run, save it as baseline NAME"),
    click.option("--server-cpus", metavar="CPUS", help="server workloads: CPUs of the server, "
                 "e.g. 0 or 0-1 (default: the lower half of the usable CPUs)"),
    click.option("--client-cpus", metavar="CPUS", help="server workloads: CPUs of the load "
                 "generator and the latency backend (default: the other CPUs)"),
    click.option("--interleave", is_flag=True, default=None, help="run the cells in rounds "
                 "(run 1 of every cell, then run 2, …; every other round in reverse order) "
                 "rather than one cell after the other: for before/after comparisons"),
    click.option("--profile", is_flag=True, default=None, help="after each cell's runs, one "
                 "more run per profiler with a flame graph (perf + inferno; async-profiler CPU "
                 "and wall-clock for JVMs): servers during the measured window"),
    click.option("--server-host", metavar="HOST", help="server workloads: run the server on "
                 "this host over SSH ([user@]host[:port] or a name in the hosts file)"),
    click.option("--client-host", metavar="HOST", multiple=True, help="server workloads: "
                 "run the load generator on this host over SSH; given several times (or a "
                 "group of the hosts file), the load is split over them (loadgen=oha)"),
    click.option("--backend-host", metavar="HOST", help="http-aggregate: run the latency "
                 "backend on this host over SSH"),
    click.option("--hosts-file", metavar="FILE", help="the hosts file (default: ./hosts.toml "
                 "if present): address, user, key, known_hosts, cpus per host name"),
    click.option("--known-hosts", metavar="FILE", help="known_hosts file the hosts' keys are "
                 "checked against (default: ssh's own)"),
    click.option("--wide", is_flag=True, help="terminal tables with every column and the "
                 "summary with every contender, however wide the terminal"),
]


def _hosts(opts: dict[str, Any]) -> dict[str, Any]:
    """The remote-host options that were given (checked now, before anything runs)."""
    from concbench.remote.hosts import roles_from

    given = {k: opts[k] for k in ("server_host", "client_host", "backend_host", "hosts_file",
                                  "known_hosts") if opts.get(k)}
    clients = list(given.get("client_host") or ())
    if clients:  # one client as before; several as a list
        given["client_host"] = clients[0] if len(clients) == 1 else clients
    roles_from(given.get("server_host"), given.get("client_host"), given.get("backend_host"),
               given.get("hosts_file"), given.get("known_hosts"))
    return given


def _check_clients(plan: Plan) -> None:
    """A load split over several client hosts: every server cell can be split (exit 2
    before anything runs otherwise)."""
    from concbench.remote.hosts import roles_from
    from concbench.server.client_load import refusal

    h = plan.settings.hosts
    if not h.get("client_host"):
        return
    clients = len(roles_from(h.get("server_host"), h.get("client_host"), h.get("backend_host"),
                             h.get("hosts_file"), h.get("known_hosts")).clients)
    for cell in plan.cells:
        problem = refusal(cell.params, clients) if cell.spec.server else None
        if problem:
            raise UserError(problem)


def run_options(func):
    for option in reversed(_run_options):
        func = option(func)
    return func


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.option("--store", metavar="FILE|URL", help="the run store: an SQLite file or a "
              "postgresql:// URL (default: CONCBENCH_STORE, else results/concbench.sqlite)")
def cli(store: str | None) -> None:
    """concbench: fair, verified benchmarks of concurrency runtimes on this machine."""
    if store:
        os.environ["CONCBENCH_STORE"] = store


@cli.command("list")
def list_cmd() -> None:
    """Contenders × workloads, with availability and why not."""
    inventory.show(_contenders())


@cli.command()
@click.option("--contender", "names", multiple=True, help="only these (repeatable)")
@click.option("--force", is_flag=True, help="rebuild even when the cache is fresh")
@click.option("--profilers", is_flag=True, help="also install what --profile uses (perf, "
              "inferno, async-profiler), which a first profiled run would otherwise fetch")
def build(names: tuple[str, ...], force: bool, profilers: bool) -> None:
    """Build the contenders' toolchains (cached by source content)."""
    all_c = _contenders()
    for name in names:
        if name not in all_c:
            raise unknown("contender", name, all_c)
    chosen = [all_c[n] for n in names] if names else list(all_c.values())
    if not inventory.build(chosen, force, profilers):
        sys.exit(1)


@cli.command()
@click.option("--contender", "names", multiple=True, help="only these (repeatable)")
@click.option("--workload", "wl_names", multiple=True, help="only these (repeatable)")
@click.option("--strict", is_flag=True, default=bool(os.environ.get("CONCBENCH_STRICT")),
              help="an unavailable contender fails verification too")
@click.option("--share", metavar="K/N", help="only the K-th of N shares of about equal cost "
              "(run N at once to verify in less time, e.g. one per CPU with taskset -c; a "
              "share's servers float over the CPUs it is given)")
def verify(names: tuple[str, ...], wl_names: tuple[str, ...], strict: bool,
           share: str | None) -> None:
    """Run every contender × workload at small sizes and check every result."""
    plan = verify_mod.plan(_contenders(), list(names), list(wl_names),
                           verify_mod.parse_share(share))
    doc = session.execute(plan, {}, show_tables=False)
    if not verify_mod.report(doc, strict):
        sys.exit(1)


@cli.command()
@click.argument("workload")
@click.option("--contender", "names", multiple=True, help="run only these (repeatable)")
@click.option("--param", "params", multiple=True, metavar="K=V", help="set a parameter")
@click.option("--scan", "scans", multiple=True, metavar="K=V1,V2,…",
              help="run every value of a parameter (repeatable: the product is run)")
@run_options
def run(workload: str, names: tuple[str, ...], params: tuple[str, ...], scans: tuple[str, ...],
        **opts: Any) -> None:
    """Run one workload on the contenders that implement it."""
    _run_workload(workload, names, params, scans, opts, default_runs=3)


@cli.command()
@click.argument("workload")
@click.option("--contender", "names", multiple=True, required=True,
              help="profile these (repeatable)")
@click.option("--param", "params", multiple=True, metavar="K=V", help="set a parameter")
@click.option("--scan", "scans", multiple=True, metavar="K=V1,V2,…",
              help="profile every value of a parameter")
@run_options
def profile(workload: str, names: tuple[str, ...], params: tuple[str, ...],
            scans: tuple[str, ...], **opts: Any) -> None:
    """Flame graphs of WORKLOAD per contender: one measured run, then one profiled run per
    profiler (its figure beside the measured one states the profiler's overhead)."""
    _run_workload(workload, names, params, scans, {**opts, "profile": True}, default_runs=1)


def _run_workload(workload: str, names: tuple[str, ...], params: tuple[str, ...],
                  scans: tuple[str, ...], opts: dict[str, Any], default_runs: int) -> None:
    spec = workloads.get(workload)
    all_c = _contenders()
    if opts["resume"]:
        plan = _resumed_plan(opts["resume"], all_c)
    else:
        settings = Settings(**_settings(opts, opts["runs"] or default_runs))
        chosen = manifest.select(all_c, list(names), spec.name)
        cells = with_limits(cells_for(spec, chosen, parse_assignments(params, "--param"),
                                      parse_assignments(scans, "--scan")), settings.limits)
        plan = Plan(spec.name, tuple(cells), settings)
    _execute(plan, opts)


@cli.command()
@click.argument("name", required=False)
@run_options
@click.option("--cold", is_flag=True, help="the seeds' cold single shot: no warm-up, one "
              "measured iteration per process (same as --warmup 0 --iterations 1)")
def suite(name: str | None, cold: bool, **opts: Any) -> None:
    """Run a named suite (without NAME: list the suites)."""
    if cold:
        if opts["warmup"] or (opts["iterations"] or 1) > 1:
            raise UserError("--cold means --warmup 0 --iterations 1; give either, not both")
        opts = {**opts, "warmup": 0, "iterations": 1}
    found = suites.available(paths.suites_dir())
    if name is None:
        for suite_name, path in found.items():
            ui.out.print(f"[bold]{suite_name}[/]: {suites.describe(path)}")
        return
    all_c = _contenders()
    if opts["resume"]:
        plan = _resumed_plan(opts["resume"], all_c)
    else:
        placement.choose(opts["server_cpus"], opts["client_cpus"])
        overrides = {"runs": opts["runs"], "warmup": opts["warmup"],
                     "iterations": opts["iterations"], "timeout_s": opts["timeout"],
                     "reference": opts["reference"],
                     "rss_limit": parse_size(opts["mem_limit"]) if opts["mem_limit"] else None,
                     "server_cpus": opts["server_cpus"], "client_cpus": opts["client_cpus"],
                     "profile": opts["profile"], "interleave": opts["interleave"],
                     "hosts": _hosts(opts) or None, "limits": _limits(opts) or None,
                     "precision": _precision(opts, opts["runs"] or 1)}
        plan = suites.load(name, paths.suites_dir(), all_c, overrides)
    _execute(plan, opts)


def _resumed_plan(run_id: str, all_c: dict[str, manifest.Contender]) -> Plan:
    return plan_from_dict(io.read(paths.run_folder(run_id) / "results.json").plan, all_c)


def _check_limits(plan: Plan) -> None:
    """Leftover cgroups and temporary directories of a killed run removed; a plan with limits
    checked to be able to make cgroups here before anything runs."""
    cgroups.clean_leftovers(lambda m: ui.err.print(f"[yellow]{m}[/]", highlight=False))
    private_tmp.clean_leftovers()
    limited = [c for c in plan.cells if c.limits]
    if not limited:
        return
    if plan.settings.hosts.get("server_host") and any(c.spec.server for c in limited):
        raise UserError("--cpus and --memory limit processes on this machine; the server "
                        "runs on another host (--server-host): give one or the other")
    cpus = next((c.limits.cpus for c in limited if c.limits.cpus), None)
    memory = next((c.limits.memory for c in limited if c.limits.memory), None)
    cgroups.preflight(cgroups.Limits(cpus, memory))


def _execute(plan: Plan, opts: dict[str, Any]) -> None:
    """Run a plan with the shared options: exports, resume, baselines."""
    from concbench import analyses, baselines, compare_command

    _check_reference(plan)
    _check_clients(plan)
    _check_limits(plan)
    ui.set_wide(bool(opts.get("wide")))
    if opts["baseline"]:
        baselines.load(opts["baseline"])  # a missing baseline fails before anything runs
    doc = session.execute(plan, _exports(opts["export_json"], opts["export_csv"],
                                         opts["export_markdown"], opts["export_html"]),
                          opts["resume"])
    compare_command.after_run(doc, opts["baseline"], opts["save_baseline"])
    analyses.after_suite(plan.name, doc)


@cli.command()
@click.argument("results", nargs=-1, required=True)
@click.option("--html", "html_f", type=click.Path(dir_okay=False),
              help="write the self-contained HTML report here")
@click.option("--markdown", "markdown_f", type=click.Path(dir_okay=False),
              help="write seed-style Markdown tables here, charts in <name>-charts/ beside it")
@click.option("--charts", "chart_fmt", type=click.Choice(["svg", "png"]), default="svg",
              show_default=True, help="format of the charts beside the Markdown")
@click.option("--wide", is_flag=True, help="terminal tables with every column and the summary "
              "with every contender, however wide the terminal")
def report(results: tuple[str, ...], html_f: str | None, markdown_f: str | None,
           chart_fmt: str, wide: bool) -> None:
    """Tables of RESULTS… (results.json files, run folders or run ids) and their summary, or
    reports of them."""
    from concbench.report import html, markdown_report, sources
    ui.set_wide(wide)
    for target in (html_f, markdown_f):
        if target:
            outputs.check_writable(Path(target))
    docs = sources.load_all(results)
    if html_f:
        outputs.write(Path(html_f), html.render(docs))
        ui.err.print(f"report: {html_f}")
    if markdown_f:
        written = markdown_report.write([d for d, _ in docs], Path(markdown_f), chart_fmt)
        ui.err.print(f"markdown: {markdown_f} and {len(written) - 1} charts")
    if not html_f and not markdown_f:
        for doc, _ in docs:
            ui.print_tables(doc)


@cli.command()
@click.argument("results", nargs=-1)
@click.option("--baseline", metavar="NAME", help="compare RESULTS with this saved baseline")
@click.option("--save-baseline", "save_as", metavar="NAME",
              help="save the new result set as baseline NAME (after comparing, if asked to)")
@click.option("--markdown", "markdown_f", type=click.Path(dir_okay=False),
              help="also write the comparison as Markdown here")
@click.option("--test", type=click.Choice(["welch", "mann-whitney"]), default="welch",
              show_default=True, help="significance test")
def compare(results: tuple[str, ...], baseline: str | None, save_as: str | None,
            markdown_f: str | None, test: str) -> None:
    """Compare BASE NEW cell by cell: ratio, 95% CI, significance (or NEW --baseline NAME)."""
    from concbench import compare_command
    compare_command.run(results, baseline, save_as, markdown_f, test)


@cli.command()
@click.option("--workload", help="only result sets with runs of this workload")
@click.option("--contender", help="only result sets with runs of this contender")
@click.option("--status", help="only runs with this status (ok, crash, timeout, invalid …)")
@click.option("--since", metavar="DATE", help="only result sets created at or after: YYYY-MM-DD, "
              "or YYYY-MM-DDTHH:MM[:SS] (UTC unless an offset such as +02:00 follows)")
@click.option("--limit", type=click.IntRange(1, 100000), default=50, show_default=True)
def history(workload: str | None, contender: str | None, status: str | None,
            since: str | None, limit: int) -> None:
    """Past result sets from the store (--store / CONCBENCH_STORE), newest first."""
    from concbench import history as history_mod
    from concbench.resultset.store import HistoryFilter
    bound = None if since is None else history_mod.since_bound(since)
    history_mod.show(ui.out, paths.store_location(),
                     HistoryFilter(workload, contender, status, bound, limit))


def _interrupt_on(*signums: int) -> None:
    """SIGTERM and SIGHUP take the same path as Ctrl-C (finished cells kept, a --resume hint,
    the contender stopped); SIGINT is reset too, since a shell starting concbench in the
    background hands it SIGINT ignored."""
    def interrupt(signum: int, _frame: object) -> None:
        raise KeyboardInterrupt(signal.Signals(signum).name)
    for signum in signums:
        signal.signal(signum, interrupt)


def main() -> None:
    _interrupt_on(signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
    try:
        cli.main(standalone_mode=False)
    except click.exceptions.Abort:
        ui.err.print("aborted")
        sys.exit(130)
    except click.ClickException as err:
        err.show()
        sys.exit(2 if isinstance(err, click.UsageError) else err.exit_code)
    except UserError as err:
        ui.err.print(f"[red]error:[/] {err}", highlight=False)
        sys.exit(2)
    except KeyboardInterrupt:
        sys.exit(130)
