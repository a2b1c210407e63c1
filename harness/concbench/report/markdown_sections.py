"""The pieces of Markdown both the results.md export and the Markdown report are made of: a
table, the summary (the answer first), the note on the ratio to nginx, the toolchains and the
warnings. Here in report, which the export package builds on, so neither imports the other's
modules both ways."""

from __future__ import annotations

from concbench.report import summary, summary_text
from concbench.report.table import Table
from concbench.resultset.model import ResultsDocument
from concbench.stats import ceiling_ratio
from concbench.warnings import document_warnings


def _escape(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render_table(table: Table) -> list[str]:
    lines = [f"### {table.workload}", ""]
    if table.fixed_params:
        fixed = ", ".join(f"{k}={v}" for k, v in table.fixed_params.items())
        lines += [f"Parameters: {fixed}", ""]
    lines.append("| " + " | ".join(table.headers) + " |")
    lines.append("|" + "|".join("---" for _ in table.headers) + "|")
    lines += ["| " + " | ".join(_escape(c) for c in row) + " |" for row in table.rows]
    return lines + [""]


def summary_section(doc: ResultsDocument, heading: str) -> list[str]:
    """The answer first: concbench.report.summary, a scan at its largest size."""
    cases = summary.summaries(doc.cells, largest_only=True)
    if not cases:
        return []
    return summary_text.markdown(cases, summary.machine_flags(doc.machine), heading)


def ceiling_note(doc: ResultsDocument) -> list[str]:
    """How the ratio to nginx was taken, when the document has one."""
    if not any(ceiling_ratio.STAT in c.stats for c in doc.cells):
        return []
    note = (f"*vs {ceiling_ratio.CEILING}, same round*: each run's requests/s over the "
            f"{ceiling_ratio.CEILING} run of the same round and parameters (runs whose warm-up "
            "did not settle left out); the median of those ratios, with the Student-t 95% "
            "interval of their geometric mean on the logarithms "
            "(harness/concbench/stats/ceiling_ratio.py).")
    if any(c.workload not in ceiling_ratio.CEILING_WORKLOADS and c.workload.startswith("http-")
           for c in doc.cells):
        note += (f" Not defined for http-aggregate: {ceiling_ratio.CEILING} serves only "
                 "http-hello; its ceiling is the design's bound (*of bound*).")
    return [note, ""]


def toolchains_section(doc: ResultsDocument, heading: str) -> list[str]:
    """Each toolchain's status and the first line of each version it reported."""
    if not doc.toolchains:
        return []
    lines = [f"{heading} Toolchains", ""]
    for name, tc in sorted(doc.toolchains.items()):
        first = [v.splitlines()[0] for v in tc.get("versions", {}).values() if v]
        lines.append(f"- {name}: {tc.get('status')}; {'; '.join(first) or tc.get('reason')}")
    return lines + [""]


def warnings_section(doc: ResultsDocument, heading: str) -> list[str]:
    notes = [f"- {where}: {_escape(w)}" for where, w in document_warnings(doc)]
    return [f"{heading} Warnings", ""] + notes + [""] if notes else []
