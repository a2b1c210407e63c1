"""`build --profilers`: what --profile runs is installed up front, each named with its state."""

from __future__ import annotations

from concbench import inventory


def _fake_installs(monkeypatch, missing: set[str]) -> list[str]:
    asked: list[str] = []

    def ensure(name, say=None):
        asked.append(name)
        return f"{name} not found: install it" if name in missing else None

    monkeypatch.setattr(inventory.tools, "ensure", ensure)
    monkeypatch.setattr(inventory.async_profiler, "ensure_library",
                        lambda: "no library" if "async-profiler" in missing else None)
    monkeypatch.setattr(inventory, "build_load_generators", lambda: True)
    return asked


def test_build_profilers_installs_each_and_a_missing_one_fails_the_build(cli, monkeypatch):
    asked = _fake_installs(monkeypatch, {"inferno-flamegraph"})
    res = cli("build", "--profilers")
    assert res.code == 1, res.stdout + res.stderr
    assert asked == ["perf", "inferno-collapse-perf", "inferno-flamegraph"]
    assert "inferno-flamegraph: inferno-flamegraph not found: install it" in res.stdout
    assert "perf: ready" in res.stdout and "async-profiler: ready" in res.stdout


def test_build_profilers_all_ready_and_plain_build_leaves_them_alone(cli, monkeypatch):
    asked = _fake_installs(monkeypatch, set())
    assert cli("build", "--profilers").code == 0
    assert asked == ["perf", "inferno-collapse-perf", "inferno-flamegraph"]
    asked.clear()
    res = cli("build")
    assert res.code == 0 and asked == [] and "async-profiler" not in res.stdout
