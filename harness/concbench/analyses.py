"""What a suite adds after its run, by the suite's name: an analysis of the whole result set
written beside results.json as <name>.md and printed (suites/calibration.toml:
concbench.calibration; suites/upgrades.toml: concbench.upgrades)."""

from __future__ import annotations

from typing import Callable

from concbench import calibration, outputs, paths, ui, upgrades
from concbench.resultset.model import ResultsDocument

ANALYSES: dict[str, Callable[[ResultsDocument], str]] = {
    "calibration": calibration.report,
    "upgrades": upgrades.report,
}


def after_suite(name: str, doc: ResultsDocument) -> None:
    """The suite's analysis, if it has one: written to the run's folder and printed."""
    analysis = ANALYSES.get(name)
    if analysis is None:
        return
    text = analysis(doc)
    path = paths.run_folder(doc.run_id) / f"{name}.md"
    outputs.write(path, text)
    ui.out.print(text, markup=False, highlight=False)
    ui.err.print(f"{name}: {path}")
