"""Running a plan as the user sees it: builds first, then cells with progress, then tables
and exports. The CLI calls this; this module owns the results folder's lifecycle."""

from __future__ import annotations

import datetime
from pathlib import Path

from concbench import machine, outputs, paths, system_check, ui
from concbench.build import Builder
from concbench.errors import UserError
from concbench.export import FORMATS
from concbench.plan import Plan
from concbench.resultset.model import ResultsDocument
from concbench.resultset.recorder import Recorder, claim_run_folder
from concbench.resultset.store import Store
from concbench.scheduler import run_plan, toolchain_record


def _new_document(plan: Plan, run_id: str, check: system_check.SystemCheck) -> ResultsDocument:
    return ResultsDocument(
        run_id=run_id, concbench_revision=machine.revision(),
        created_at=datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        machine={**machine.describe(), "system_check": check.to_dict()}, toolchains={},
        plan=plan.to_dict(), cells=())


def check_system(plan: Plan) -> system_check.SystemCheck:
    """Look at the machine before anything runs; say at once what would move the figures."""
    check = system_check.check(has_servers=any(c.spec.server is not None for c in plan.cells))
    for warning in check.warnings:
        ui.err.print(f"[yellow]warning[/] machine: {warning}")
    return check


def build_all(plan: Plan, builder: Builder) -> dict[str, dict[str, object]]:
    """Build every toolchain the plan needs before anything is timed."""
    records = {}
    for tc in {c.contender.toolchain.name: c.contender.toolchain for c in plan.cells}.values():
        with ui.err.status(f"checking build of {tc.name} ..."):
            outcome = builder.ensure(tc)
        records[tc.name] = toolchain_record(outcome)
        if not outcome.ok:
            ui.err.print(f"[yellow]{tc.name} unavailable:[/] {outcome.reason}")
        elif not outcome.cached:
            ui.err.print(f"[green]built {tc.name}[/] in {outcome.seconds:.0f} s")
    return records


def write_exports(doc: ResultsDocument, folder: Path, extra: dict[str, Path]) -> list[Path]:
    """Every format into the results folder, then each file the user asked for: all are
    tried, and any that could not be written whole is an error naming it."""
    written, failed = [], []
    datas = {fmt: serialize(doc) for fmt, (_, serialize) in FORMATS.items()}
    targets = [(fmt, folder / filename) for fmt, (filename, _) in FORMATS.items()]
    for fmt, target in targets + list(extra.items()):
        if not datas[fmt]:
            continue
        try:
            outputs.write(target, datas[fmt])
            written.append(target)
        except UserError as err:
            failed.append(str(err))
    if failed:
        raise UserError("; ".join(failed))
    return written


def execute(plan: Plan, exports: dict[str, Path], resume: str | None = None,
            show_tables: bool = True) -> ResultsDocument:
    builder = Builder(paths.cache_dir(), say=lambda m: ui.err.print(f"[cyan]{m}[/]"))
    store = Store(paths.store_location())
    check = check_system(plan)
    if resume:
        folder = paths.run_folder(resume)
        if not (folder / "results.json").exists():
            raise UserError(f"no results to resume at {folder}; run ids are folder names "
                            f"under {paths.results_dir()}")
        recorder = Recorder.resume(folder, store)
    else:
        run_id, folder = claim_run_folder(paths.results_dir(), plan.name)
        recorder = Recorder(folder, _new_document(plan, run_id, check), store)
    recorder.set_toolchains(build_all(plan, builder))
    try:
        with ui.ProgressView(plan.total_runs, plan.cells) as view:
            run_plan(plan, builder, recorder, view, say=view.say)
    except KeyboardInterrupt:
        ui.err.print(f"[yellow]interrupted[/]: every finished cell is in {recorder.results_path}; "
                     f"continue with --resume {recorder.doc.run_id}")
        raise SystemExit(130) from None
    finally:
        store.close()
    doc = recorder.doc
    if show_tables:
        ui.print_tables(doc)
    try:
        written = write_exports(doc, recorder.folder, exports)
    except UserError as err:
        raise UserError(f"{err} (every measured cell is safe in {recorder.results_path})") \
            from None
    ui.err.print(f"results: {recorder.results_path}  (also {', '.join(p.name for p in written[1:])})")
    return doc
