"""The Markdown report for a post: first the summary (who led each workload, by how much),
then per workload its own summary (every size of a scan), the seed-style tables (contender
rows, size columns), each followed by its chart as an SVG or PNG file beside the Markdown,
the summary table, the scaling fits, the machine and toolchains, and every warning."""

from __future__ import annotations

from pathlib import Path

from concbench import outputs
from concbench.report.markdown_sections import ceiling_note, render_table, summary_section, \
    toolchains_section, warnings_section
from concbench.report import capacity_chart, capacity_table, charts, latency_load_chart, \
    load_curves, scaling_table, summary, summary_text, syscall_table
from concbench.report.seed_tables import SeedTable, markdown, seed_tables
from concbench.report.table import tables
from concbench.report.views import chart
from concbench.report import hosts_table
from concbench.resultset.model import ResultsDocument
from concbench.stats.scans import scan_fits

CHART_FORMATS = ("svg", "png")


def _machine(doc: ResultsDocument) -> str:
    m = doc.machine
    runs = doc.plan.get("runs")
    return (f"Machine: {m.get('cpu_model', '?')}, {m.get('logical_cores', '?')} cores, "
            f"{(m.get('memory_bytes') or 0) / 2**30:.0f} GiB, {m.get('os', '?')}, kernel "
            f"{m.get('kernel', '?')}. concbench {doc.concbench_revision}, plan "
            f"{doc.plan.get('name', '?')}" + (f", {runs} runs per cell." if runs else "."))


def _seed_section(table: SeedTable, chart_dir: str | None, fmt: str,
                  files: dict[str, bytes], colors: charts.Colors) -> list[str]:
    title = table.metric.title + (f", {table.subset}" if table.subset else "")
    lines = [f"#### {table.workload}: {title}", ""] + markdown(table) + [""]
    if chart_dir is not None:
        name = f"{chart_dir}/{table.slug}.{fmt}"
        files[name] = charts.render(chart(list(table.cells), table.metric, table.size_param),
                                    fmt, colors)
        lines += [f"![{table.workload}: {title}]({name})", ""]
    return lines


def _latency(doc: ResultsDocument, workload: str, chart_dir: str | None, fmt: str,
             files: dict[str, bytes], colors: charts.Colors) -> list[str]:
    from concbench.report.html import latency_series

    series = latency_series(tuple(c for c in doc.cells if c.workload == workload))
    if chart_dir is None or not series:
        return []
    name = f"{chart_dir}/{doc.run_id}-{workload}-latency.{fmt}"
    files[name] = charts.latency(series, fmt, colors)
    return [f"![{workload}: latency by percentile]({name})", ""]


def _load_and_capacity(doc: ResultsDocument, workload: str, chart_dir: str | None, fmt: str,
                       files: dict[str, bytes], colors: charts.Colors) -> list[str]:
    """The latency–load and capacity charts of a server workload, as files beside the text."""
    if chart_dir is None:
        return []
    cells = [c for c in doc.cells if c.workload == workload]
    drawn = [(latency_load_chart.title(c), f"load-{i + 1}",
              latency_load_chart.render(c, fmt, colors))
             for i, c in enumerate(load_curves.curves(cells))]
    drawn += [(capacity_chart.title(c), f"capacity-{i + 1}",
               capacity_chart.render(c, fmt, colors))
              for i, c in enumerate(capacity_chart.capacity_charts(cells))]
    lines = []
    for title, kind, data in drawn:
        name = f"{chart_dir}/{doc.run_id}-{workload}-{kind}.{fmt}"
        files[name] = data
        lines += [f"![{title}]({name})", ""]
    return lines


def _fits(doc: ResultsDocument, workload: str) -> list[str]:
    fits = [f for f in scan_fits(doc.cells) if f.workload == workload]
    if not fits:
        return []
    lines = [f"#### Scaling over {fits[0].size_param}: cost = a + b·N (least squares)", "",
             "| " + " | ".join(scaling_table.HEADERS) + " |",
             "|" + "|".join("---" for _ in scaling_table.HEADERS) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in scaling_table.rows(fits)]
    return lines + [""] + [f"- {w}" for w in scaling_table.warnings(fits)] + \
        ([""] if scaling_table.warnings(fits) else [])


def _document(doc: ResultsDocument, chart_dir: str | None, fmt: str,
              files: dict[str, bytes]) -> list[str]:
    lines = [f"## Run {doc.run_id}", "", *summary_section(doc, "###"), _machine(doc), "",
             *hosts_table.markdown(doc)]
    tables_of = {t.workload: t for t in tables(doc.cells, doc.plan.get("reference"))}
    seeds = seed_tables(list(doc.cells))
    colors = charts.palette([c.contender for c in doc.cells])
    every_size = summary.summaries(doc.cells)
    for workload, table_of in tables_of.items():
        lines += [f"### {workload}", ""]
        lines += summary_text.markdown_rows([c for c in every_size if c.workload == workload])
        lines.append("")
        for table in (t for t in seeds if t.workload == workload):
            lines += _seed_section(table, chart_dir, fmt, files, colors)
        lines += _latency(doc, workload, chart_dir, fmt, files, colors)
        lines += _load_and_capacity(doc, workload, chart_dir, fmt, files, colors)
        lines += ["#### Summary", ""] + render_table(table_of)[2:] + _fits(doc, workload)
        lines += capacity_table.markdown(doc.cells, workload)
        lines += syscall_table.markdown(doc.cells, workload)
    return lines + ceiling_note(doc) + toolchains_section(doc, "###") + \
        warnings_section(doc, "###")


def render(docs: list[ResultsDocument], chart_dir: str | None = None,
           fmt: str = "svg") -> tuple[str, dict[str, bytes]]:
    """The Markdown text and the chart files it links to ({relative path: bytes})."""
    files: dict[str, bytes] = {}
    lines = ["# concbench results", ""]
    for doc in docs:
        lines += _document(doc, chart_dir, fmt, files)
    return "\n".join(lines).rstrip("\n") + "\n", files


def write(docs: list[ResultsDocument], target: Path, fmt: str = "svg") -> list[Path]:
    """Write the Markdown and its charts (in <name>-charts/ beside it); the paths written."""
    chart_dir = f"{target.stem}-charts"
    text, files = render(docs, chart_dir, fmt)
    outputs.write(target, text)
    written = [target]
    for rel, data in files.items():
        path = target.parent / rel
        outputs.write(path, data)
        written.append(path)
    return written
