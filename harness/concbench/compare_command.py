"""`concbench compare`: which two result sets, the comparison, where it is shown, baselines."""

from __future__ import annotations

from pathlib import Path

from concbench import baselines, compare, outputs, ui
from concbench.errors import UserError
from concbench.report import compare_table, sources
from concbench.resultset.model import ResultsDocument


def _sides(results: tuple[str, ...], baseline: str | None,
           save_as: str | None) -> tuple[tuple[ResultsDocument, str] | None, ResultsDocument,
                                         str]:
    """(base and its name, or None when only saving), new, new's name."""
    if baseline:
        if len(results) != 1:
            raise UserError("with --baseline NAME give exactly one result set: the new one")
        new, _ = sources.load(results[0])
        return (baselines.load(baseline), f"baseline {baseline}"), new, new.run_id
    if len(results) == 1 and save_as:
        new, _ = sources.load(results[0])
        return None, new, new.run_id
    if len(results) != 2:
        raise UserError("give BASE and NEW (results.json files, run folders or run ids), or "
                        "NEW with --baseline NAME")
    base, _ = sources.load(results[0])
    new, _ = sources.load(results[1])
    return (base, base.run_id), new, new.run_id


def show(base_doc: ResultsDocument, base_name: str, new: ResultsDocument, new_name: str,
         markdown_path: str | None, test: str) -> None:
    """The comparison in the terminal (and as Markdown when a path is given)."""
    found = compare.compare(base_doc, new, test)
    notes = [compare.method_note(found), *compare.notes(base_doc, new)]
    compare_table.print_terminal(ui.out, found, base_name, new_name, notes)
    if markdown_path:
        text = compare_table.markdown(found, base_name, new_name, notes, test)
        outputs.write(Path(markdown_path), text)
        ui.err.print(f"comparison: {markdown_path}")


def run(results: tuple[str, ...], baseline: str | None, save_as: str | None,
        markdown_path: str | None, test: str) -> None:
    base, new, new_name = _sides(results, baseline, save_as)
    if base is not None:
        show(base[0], base[1], new, new_name, markdown_path, test)
    if save_as:
        ui.err.print(f"saved baseline {save_as}: {baselines.save(save_as, new)}")


def after_run(new: ResultsDocument, baseline: str | None, save_as: str | None) -> None:
    """`run` / `suite` with --baseline / --save-baseline, as criterion does."""
    if baseline:
        show(baselines.load(baseline), f"baseline {baseline}", new, new.run_id, None, "welch")
    if save_as:
        ui.err.print(f"saved baseline {save_as}: {baselines.save(save_as, new)}")
