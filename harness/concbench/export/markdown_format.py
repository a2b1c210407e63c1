"""Markdown export: the summary first (who led each workload, by how much), then the tables,
the machine and toolchains, every warning."""

from __future__ import annotations

from concbench.report import capacity_table, hosts_table, scaling_table, syscall_table
from concbench.report.markdown_sections import ceiling_note, render_table, summary_section, \
    toolchains_section, warnings_section
from concbench.report.table import tables
from concbench.resultset.model import ResultsDocument


def serialize(doc: ResultsDocument) -> bytes:
    m = doc.machine
    lines = [f"# concbench results {doc.run_id}", "", *summary_section(doc, "##"),
             f"Machine: {m.get('cpu_model', '?')}, {m.get('logical_cores', '?')} cores, "
             f"{(m.get('memory_bytes') or 0) / 2**30:.0f} GiB, {m.get('os', '?')}, "
             f"kernel {m.get('kernel', '?')}. concbench {doc.concbench_revision}.", "",
             *hosts_table.markdown(doc, "##")]
    for table in tables(doc.cells, doc.plan.get("reference")):
        lines += render_table(table)
        lines += capacity_table.markdown(doc.cells, table.workload)
        lines += syscall_table.markdown(doc.cells, table.workload)
        lines += scaling_table.markdown(doc.cells, table.workload)
    lines += ceiling_note(doc) + toolchains_section(doc, "##") + warnings_section(doc, "##")
    return "\n".join(lines).encode()
