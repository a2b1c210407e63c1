"""compare: ratios, intervals and significance against known samples; golden outputs;
baselines through the command line."""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

import pytest
from rich.console import Console

from concbench import workloads
from concbench.compare import compare, ratio_test
from concbench.report import compare_table
from concbench.resultset import io
from concbench.stats.cell import aggregate, unavailable
from concbench.workloads.budget import UNBOUNDED
from sample_doc import _run, check_golden, pooled, sample_document


def _new_document():
    """The sample, re-measured: go at 1000 tasks 20% slower, the java timeout now ok."""
    doc = sample_document()
    spec = workloads.get("sleep-tasks")
    meta = {"throughput_unit": "tasks"}
    small = spec.resolve({"tasks": 1000, "sleep-ms": 100, "pool-size": 100})
    big = spec.resolve({"tasks": 10000, "sleep-ms": 100, "pool-size": 100})
    cells = (
        aggregate(spec, "go", small, UNBOUNDED, [_run([122.0], 12, 5), _run([123.5], 12, 5),
                                             _run([121.0], 13, 5)], meta),
        doc.cells[1],
        aggregate(spec, "go", big, UNBOUNDED, [_run([119.0], 40, 5), _run([121.0], 41, 5)], meta),
        aggregate(spec, "java-platform", big, pooled(big), [_run([1250.0], 90, 130),
                                                     _run([1260.0], 91, 130)], meta),
        unavailable(spec, "rust-tokio", big, UNBOUNDED, "cargo not found: install Rust", meta),
    )
    return replace(doc, run_id="20260102-000000-sample", cells=cells)


def test_ratio_interval_and_p_match_welch_on_logs():
    base, new = [100.0, 102.0, 98.0, 101.0], [120.0, 119.0, 123.0, 121.0]
    t = ratio_test(base, new)
    gm = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs))  # noqa: E731
    assert t.ratio == pytest.approx(gm(new) / gm(base))
    assert t.ci95[0] < t.ratio < t.ci95[1] and t.ci95[0] > 1
    from scipy.stats import ttest_ind
    p = ttest_ind([math.log(v) for v in new], [math.log(v) for v in base], equal_var=False).pvalue
    assert t.p_value == pytest.approx(p) and t.significant


def test_a_set_compared_with_itself_has_no_significant_change():
    doc = sample_document()
    found = compare(doc, doc)
    assert all(c.verdict == "not significant" for c in found if c.test)
    assert all(c.test.ratio == pytest.approx(1.0) for c in found if c.test)
    failed = {(c.contender, c.params["tasks"]): c.verdict for c in found if c.test is None}
    assert failed[("java-platform", 10000)] == "base: timeout; new: timeout"
    assert failed[("rust-tokio", 10000)] == "base: unavailable; new: unavailable"


def test_one_measurement_is_never_significant_and_mann_whitney_needs_more():
    assert not ratio_test([1.0], [2.0]).significant
    assert ratio_test([1.0], [2.0]).ci95 is None
    mw = ratio_test([1.0, 1.1, 1.05], [2.0, 2.1, 2.05], test="mann-whitney")
    assert mw.p_value == pytest.approx(0.1) and not mw.significant


def test_comparison_markdown_matches_golden_file():
    base, new = sample_document(), _new_document()
    text = compare_table.markdown(compare(base, new), base.run_id, new.run_id, [], "welch")
    check_golden("compare.md", text)
    go_row = next(line for line in text.splitlines() if "| go | tasks=1000 | time" in line)
    assert "slower" in go_row


def test_comparison_terminal_output_matches_golden_file():
    base, new = sample_document(), _new_document()
    console = Console(record=True, width=170, color_system=None, force_terminal=False)
    compare_table.print_terminal(console, compare(base, new), base.run_id, new.run_id,
                                 ["different plans: a vs b"])
    check_golden("compare.txt", console.export_text())


def _write(tmp_path: Path, doc) -> str:
    path = tmp_path / doc.run_id / "results.json"
    io.write_atomically(path, io.to_json(doc))
    return str(path)


def test_compare_command_and_baselines(cli, tmp_path):
    base = _write(tmp_path, sample_document())
    new = _write(tmp_path, _new_document())
    res = cli("compare", base, new, "--markdown", str(tmp_path / "c.md"))
    assert res.code == 0, res.stderr
    assert "slower" in res.stdout and "not significant" in res.stdout
    assert "java-platform" in (tmp_path / "c.md").read_text()
    assert cli("compare", base, "--save-baseline", "main").code == 0
    assert (cli.root / "results" / "baselines" / "main.json").is_file()
    res = cli("compare", new, "--baseline", "main")
    assert res.code == 0 and "baseline main" in res.stdout and "slower" in res.stdout
    res = cli("compare", new, "--baseline", "nope")
    assert res.code == 2 and "saved baselines: main" in res.stderr
    res = cli("compare", new)
    assert res.code == 2 and "give BASE and NEW" in res.stderr


def test_server_cells_compare_requests_per_second_p99_and_memory():
    """A server cell has no iterations: its runs' requests/s and p99 are what is compared."""
    from sample_doc import _server_run

    doc = sample_document(servers=True)
    go = next(c for c in doc.cells if c.contender == "go" and c.workload == "http-hello")
    # three processes a side: two would not pass Benjamini–Hochberg over the 15 tests
    before = replace(go, runs=(*go.runs, _server_run(65000, 4.1, 8.1, 25, 70, 90, 12, 6)))
    slower = replace(go, runs=(_server_run(51000, 4.4, 10.1, 30, 80, 92, 12, 6),
                               _server_run(51500, 4.35, 10.2, 29, 80, 92, 12, 6),
                               _server_run(52000, 4.3, 10.3, 28, 81, 93, 12, 6)))
    base = replace(doc, cells=tuple(before if c is go else c for c in doc.cells))
    new = replace(doc, cells=tuple(slower if c is go else c for c in doc.cells))
    found = {(c.workload, c.contender, c.metric): c for c in compare(base, new)}
    assert ("http-hello", "go", "time") not in found
    rps = found[("http-hello", "go", "requests/s")]
    assert rps.test.base_median == pytest.approx(65000) and rps.test.new_median == 51500
    assert rps.verdict == "fewer requests/s" and rps.better is False
    p99 = found[("http-hello", "go", "p99")]
    assert p99.test.new_median == pytest.approx(0.0102)
    assert p99.verdict == "higher p99" and p99.better is False
    assert found[("http-hello", "go", "memory")].verdict == "not significant"
    assert found[("http-hello", "nginx", "requests/s")].verdict == "not significant"
    one = replace(go, runs=go.runs[:1])
    alone = compare(replace(base, cells=(one,)), replace(base, cells=(one,)))
    assert {c.verdict for c in alone} == {"no test (n = 1)"}
    assert found[("sleep-tasks", "go", "time")].test is not None
    row = compare_table.row(rps, [])
    assert row[4] == "65.00 kreq/s" and row[5] == "51.50 kreq/s"


def test_runs_that_lost_cpu_time_to_the_hypervisor_are_noted():
    from concbench.compare import notes

    base = sample_document()
    first = base.cells[0]
    robbed = replace(first, runs=(replace(first.runs[0], steal_percent=7.5),
                                  *(replace(r, steal_percent=0.1) for r in first.runs[1:])))
    new = replace(base, cells=(robbed, *base.cells[1:]))
    assert not [n for n in notes(base, base) if "hypervisor" in n]
    said = [n for n in notes(base, new) if "hypervisor" in n]
    assert said == ["new: the hypervisor withheld more than 2% of the CPUs' time in 1 of 3 runs "
                    "(up to 7.5%): a change there may be the host's, not the contender's"]
