"""spawn-idle's task forms in node and python (issue 26 item 9): the default is the lightest task
(a timer promise; an eager Task of asyncio.sleep), the heavier form a variant chosen by the
manifest's env; the result's task_form says which ran, and an unknown form is bad input."""

from __future__ import annotations

import os
import subprocess

import pytest

from conftest import REPO

pytestmark = pytest.mark.answers_only  # which task form ran: beside the measuring tests

FORMS = {
    "node": "timer",
    "node-async-fn": "async-fn",
    "python-asyncio": "sleep",  # "coroutine" when the venv's CPython has no eager tasks (3.11)
    "python-asyncio-coroutine": "coroutine",
}
VENV_PYTHON = REPO / "contenders" / "python" / ".venv" / "bin" / "python"


def _venv_has_eager_tasks() -> bool:
    probe = "import sys; print(sys.version_info >= (3, 12))"
    out = subprocess.run([str(VENV_PYTHON), "-c", probe], capture_output=True, text=True, check=True)
    return out.stdout.strip() == "True"


@pytest.mark.parametrize("contender", sorted(FORMS))
def test_each_contender_runs_its_own_task_form(real_bench, contender):
    res = real_bench("run", "spawn-idle", "--contender", contender, "--param", "tasks=200",
                     "--param", "hold-ms=50", "--runs", "1")
    assert res.code == 0, res.stderr[-2000:]
    cell = real_bench.last()["cells"][0]
    assert cell["status"] == "ok", cell["reason"]
    result = cell["runs"][0]["iterations"][-1]["result"]
    assert result["tasks"] == 200
    expected = FORMS[contender]
    if contender == "python-asyncio" and not _venv_has_eager_tasks():
        expected = "coroutine"
    assert result["task_form"] == expected


@pytest.mark.parametrize("argv", [
    ["node", "main.mjs", "spawn-idle"],
    [".venv/bin/python", "main.py", "asyncio", "spawn-idle"],
], ids=["node", "python"])
def test_an_unknown_task_form_is_bad_input(real_bench, argv):
    folder = REPO / "contenders" / ("node" if argv[0] == "node" else "python")
    if argv[0] != "node":
        assert real_bench("build", "--contender", "python-asyncio").code == 0
    env = {**os.environ, "CONCBENCH_SPAWN_IDLE_TASK": "no-such-form"}
    out = subprocess.run(argv + ["--tasks=1", "--hold-ms=1", "--warmup=0", "--iterations=1"],
                         cwd=folder, env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 2, out.stderr
    assert "CONCBENCH_SPAWN_IDLE_TASK=no-such-form" in out.stderr
