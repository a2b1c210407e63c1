"""Variants (a manifest entry with variant_of): run only when named, notes extend the base's;
and the JVM pitfall variants of seed 001 measured at small size on the real contenders."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from concbench import manifest, verify
from concbench.errors import UserError

BASE = """
[toolchain]
name = "t"

[contenders.base]
run = ["x"]
workloads = ["sleep-tasks", "fanout"]
[contenders.base.notes]
gc = "base gc"
sleep = "base sleep"
"""


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "t" / "contenders.toml"
    path.parent.mkdir()
    path.write_text(text)
    return path


def test_a_variant_extends_its_base_and_runs_only_when_named(tmp_path):
    path = _write(tmp_path, BASE + """
[contenders.base-v]
variant_of = "base"
run = ["x", "-v"]
workloads = ["sleep-tasks"]
[contenders.base-v.notes]
sleep = "variant sleep"
""")
    found = {c.name: c for c in manifest.load_manifest(path)}
    variant = found["base-v"]
    assert variant.variant_of == "base" and found["base"].variant_of is None
    assert variant.notes == {"gc": "base gc", "sleep": "variant sleep"}
    assert [c.name for c in manifest.select(found, [], "sleep-tasks")] == ["base"]
    assert [c.name for c in manifest.select(found, ["base-v"], "sleep-tasks")] == ["base-v"]


def test_a_variant_of_an_unknown_contender_is_a_clear_error(tmp_path):
    path = _write(tmp_path, BASE + """
[contenders.orphan]
variant_of = "nobody"
run = ["x"]
""")
    with pytest.raises(UserError, match="variant_of = 'nobody'.*declared earlier"):
        manifest.load_manifest(path)


@pytest.mark.answers_only  # counts and settings, not time: beside the measuring tests
def test_seed_001_pitfalls_on_jdk_25(real_bench, jdk25):
    """JDK 24+ no longer pins on synchronized (JEP 491); a native frame on the stack still
    pins: every native-frame task reports one jdk.VirtualThreadPinned event."""
    if shutil.which("mvn") is None:
        pytest.skip("the Java contenders are built with Maven: apt-get install -y maven")
    tasks = 40
    res = real_bench("run", "sleep-tasks", "--contender", "java-virtual-synchronized",
                     "--contender", "java-virtual-native-frame",
                     "--contender", "java-platform-threadlocal", "--param", f"tasks={tasks}",
                     "--param", "sleep-ms=20", "--param", "pool-size=8", "--runs", "1",
                     "--warmup", "1", timeout=600)
    assert res.code == 0, res.stderr[-2000:]
    cells = {c["contender"]: c for c in real_bench.last()["cells"]}
    assert all(c["status"] == "ok" for c in cells.values()), \
        {n: c["reason"] for n, c in cells.items()}

    def measured(name: str) -> dict:
        its = [it for it in cells[name]["runs"][0]["iterations"] if not it["warmup"]]
        assert its
        return its[0]["result"]

    assert measured("java-virtual-synchronized")["jvm_vt_pinned"] == 0
    assert measured("java-virtual-native-frame")["jvm_vt_pinned"] >= tasks
    assert measured("java-virtual-native-frame")["jvm_vt_pinned_ms"] >= 20
    assert "jvm_vt_pinned" not in measured("java-platform-threadlocal"), "JFR off there"


def test_a_variant_env_is_parsed_and_checked(tmp_path):
    path = _write(tmp_path, BASE + """
[contenders.base-env]
variant_of = "base"
run = ["x"]
workloads = ["fanout"]
env = { GOMAXPROCS = "1" }
""")
    found = {c.name: c for c in manifest.load_manifest(path)}
    assert found["base-env"].env == {"GOMAXPROCS": "1"} and found["base"].env == {}
    path.write_text(BASE + '\n[contenders.bad]\nrun = ["x"]\nenv = { N = 1 }\n')
    with pytest.raises(UserError, match="env"):
        manifest.load_manifest(path)


@pytest.mark.answers_only  # counts and settings, not time: beside the measuring tests
def test_the_environment_of_a_variant_reaches_the_runtime(real_bench):
    """rust-tokio-current-thread's env makes Tokio run one worker (the multi-thread default
    has one per CPU), and the cell records the env it ran with."""
    res = real_bench("run", "fanout", "--contender", "rust-tokio-current-thread",
                     "--param", "requests=200", "--param", "user-ms=1", "--param", "orders-ms=1",
                     "--param", "prefs-ms=1", "--param", "notifications-ms=1", "--runs", "1")
    assert res.code == 0, res.stderr[-2000:]
    cell = real_bench.last()["cells"][0]
    assert cell["status"] == "ok", cell["reason"]
    assert cell["runs"][0]["iterations"][-1]["result"]["tokio_workers"] == 1
    assert cell["metadata"]["env"] == {"CONCBENCH_TOKIO_FLAVOR": "current_thread"}


def test_a_server_names_its_http_stack_and_a_variant_inherits_it(tmp_path):
    server = """
[toolchain]
name = "t"

[contenders.srv]
run = ["x"]
workloads = ["http-hello"]
server_stack = "minimal"

[contenders.srv-v]
variant_of = "srv"
run = ["x", "-v"]
workloads = ["http-hello"]

[contenders.srv-batch]
variant_of = "srv"
run = ["x"]
workloads = ["fanout"]
"""
    path = _write(tmp_path, server)
    found = {c.name: c for c in manifest.load_manifest(path)}
    assert found["srv"].server_stack == "minimal" and found["srv-v"].server_stack == "minimal"
    assert found["srv-batch"].server_stack is None, "a batch-only variant serves nothing"
    for bad in ('', 'server_stack = "fast"\n'):
        path.write_text(server.replace('server_stack = "minimal"\n', bad))
        with pytest.raises(UserError, match="server_stack must be one of 'standard', 'minimal'"):
            manifest.load_manifest(path)


def test_a_variant_is_verified_where_it_differs_unless_it_is_named(tmp_path):
    path = _write(tmp_path, BASE + """
[contenders.base-tuned]
variant_of = "base"
run = ["x"]
workloads = ["sleep-tasks", "fanout"]
differs_on = ["fanout"]

[contenders.base-engine]
variant_of = "base"
run = ["x", "--engine=other"]
workloads = ["sleep-tasks", "fanout"]
""")
    found = {c.name: c for c in manifest.load_manifest(path)}

    def planned(names: list[str]) -> set[tuple[str, str]]:
        return {(c.contender.name, c.spec.name) for c in verify.plan(found, names, []).cells}

    everything = planned([])
    assert ("base-tuned", "fanout") in everything
    assert ("base-tuned", "sleep-tasks") not in everything, "the base's code, checked as base"
    assert {("base-engine", "fanout"), ("base-engine", "sleep-tasks")} <= everything
    assert {w for n, w in planned(["base-tuned"])} == {"fanout", "sleep-tasks"}


@pytest.mark.parametrize("entry, message", [
    ('variant_of = "base"\nworkloads = ["fanout"]\ndiffers_on = ["ring"]', "not ring"),
    ('variant_of = "base"\nworkloads = ["fanout"]\ndiffers_on = []', "not none"),
    ('workloads = ["fanout"]\ndiffers_on = ["fanout"]', "only a variant"),
])
def test_differs_on_names_some_of_the_variants_own_workloads(tmp_path, entry, message):
    path = _write(tmp_path, BASE + f"\n[contenders.v]\nrun = [\"x\"]\n{entry}\n")
    with pytest.raises(UserError, match=message):
        manifest.load_manifest(path)
