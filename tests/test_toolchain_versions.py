"""Toolchain versions: a variant on another version of its toolchain with one manifest entry
(`toolchain_version`, from `[toolchain.other_version]`): its own toolchain `<name>@<version>`,
build outputs and cache key, the default untouched; a version that cannot be had is
"unavailable" with what to do, never a traceback. The slow test builds go-1.27 with the module
proxy's Go and verifies it."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from concbench import build, manifest, paths
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
    expected = {"go-1.27": ("go", "go-toolchain", "1.27.4"),
                "go-fasthttp-1.27": ("go-fasthttp", "go-toolchain", "1.27.4"),
                "node-24": ("node", "pypi", "24.19.0"),
                "python-asyncio-3.13": ("python-asyncio", "pyenv", "3.13.0"),
                "python-uvloop-3.13": ("python-uvloop", "pyenv", "3.13.0")}
    for name, (base, source, version) in expected.items():
        variant = found[name]
        assert variant.variant_of == base and found[base].toolchain.pin is None, name
        assert variant.toolchain.name == f"{found[base].toolchain.name}@{version}", name
        assert (variant.toolchain.pin.source, variant.toolchain.pin.version) == (source, version)
        assert set(variant.toolchain.outputs).isdisjoint(found[base].toolchain.outputs) or \
            variant.toolchain.outputs == ("main.mjs",), name  # node builds nothing of its own
    assert found["go"].toolchain.build_commands == (
        ("go", "build", "-trimpath", "-o", "build/concbench-go", "."),)


def test_what_a_pinned_runtime_saw_is_named_as_its_toolchains():
    """The ready line's cpus of go@1.27.4 is GOMAXPROCS, as go's (report.runtime_saw)."""
    cell = CellResult("http-hello", "go-1.27", {}, "ok", None, None, None, (), {},
                      metadata={"toolchain": "go@1.27.4"})
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


def test_a_go_release_builds_with_gotoolchain_into_its_own_output(tmp_path, monkeypatch):
    """The fake go stands for the real one: `version` and `build -o` answer as the release
    GOTOOLCHAIN names, so the build, its output and its recorded version are that release's."""
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


@pytest.mark.answers_only
def test_go_1_27_builds_with_the_module_proxys_go_and_verifies(real_bench):
    """End to end: the variant's binary is built by Go 1.27.4 into its own path (the default's
    stays), its results name its toolchain and record that version."""
    res = real_bench("build", "--contender", "go-1.27", timeout=1800)
    assert res.code == 0, res.stdout + res.stderr[-3000:]
    assert "go@1.27.4: " in res.stdout and "go1.27.4" in res.stdout, res.stdout
    binary = paths.contenders_dir() / "go" / "build" / "go1.27.4" / "concbench-go"
    shown = subprocess.run(["go", "version", str(binary)], capture_output=True, text=True,
                           env={**os.environ, "GOTOOLCHAIN": "local"}, timeout=60)
    assert shown.stdout.strip().endswith(": go1.27.4"), shown.stdout + shown.stderr
    res = real_bench("verify", "--contender", "go-1.27", "--workload", "sleep-tasks",
                     "--workload", "ring", timeout=600)
    assert res.code == 0, res.stdout + res.stderr[-3000:]
    doc = real_bench.last()
    assert {c["status"] for c in doc["cells"]} == {"ok"}
    assert {c["metadata"]["toolchain"] for c in doc["cells"]} == {"go@1.27.4"}
    versions = doc["toolchains"]["go@1.27.4"]["versions"]
    assert versions["go version"].startswith("go version go1.27.4 "), versions
