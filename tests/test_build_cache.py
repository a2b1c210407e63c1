"""The build cache: a binary built with other flags is never reused silently."""

from __future__ import annotations

import sys

from concbench.build import Builder, build_env, cache_key
from concbench.manifest import Toolchain
from concbench.toolchains import ToolEnv


def _toolchain(folder) -> Toolchain:
    (folder / "main.src").write_text("source\n")
    script = ("import os, pathlib; p = pathlib.Path('built.txt'); "
              "p.write_text(os.environ.get('RUSTFLAGS', '') + '|' + "
              "str(int(p.read_text().split('|')[1]) + 1 if p.exists() else 1))")
    return Toolchain(name="t", folder=folder, requires=(), version_commands=(),
                     build_commands=((sys.executable, "-c", script),), inputs=("*.src",),
                     outputs=("built.txt",))


def test_only_build_relevant_variables_enter_the_key(tmp_path):
    tc, tools = _toolchain(tmp_path), ToolEnv()
    plain = cache_key(tc, tools, {"HOME": "/root", "TERM": "xterm"})
    assert cache_key(tc, tools, {}) == plain  # unset: the key of earlier versions
    assert cache_key(tc, tools, {"RUSTFLAGS": "-C target-cpu=native"}) != plain
    assert cache_key(tc, tools, {"CARGO_PROFILE_RELEASE_LTO": "true"}) != plain
    assert build_env({"GOFLAGS": "-tags=x", "GOPATH": "/go", "EDITOR": "vi"}) == \
        {"GOFLAGS": "-tags=x"}


def test_setting_rustflags_rebuilds_and_is_recorded(tmp_path, monkeypatch):
    (tmp_path / "src").mkdir()
    tc = _toolchain(tmp_path / "src")
    monkeypatch.delenv("RUSTFLAGS", raising=False)
    first = Builder(tmp_path / "cache").ensure(tc)
    again = Builder(tmp_path / "cache").ensure(tc)
    assert first.ok and not first.cached and again.cached
    monkeypatch.setenv("RUSTFLAGS", "-C target-cpu=native")
    flagged = Builder(tmp_path / "cache").ensure(tc)
    assert flagged.ok and not flagged.cached
    assert (tc.folder / "built.txt").read_text() == "-C target-cpu=native|2"
    assert flagged.versions["build environment"] == "RUSTFLAGS=-C target-cpu=native"


def test_a_file_below_a_trailing_double_star_pattern_changes_the_key(tmp_path):
    """`src/main/resources/**` names every file below it: a changed properties file must
    rebuild the jar (Path.glob's `dir/**` yields only directories before Python 3.13)."""
    resources = tmp_path / "src" / "main" / "resources"
    (resources / "nested").mkdir(parents=True)
    (resources / "application.properties").write_text("a=1\n")
    (resources / "nested" / "b.properties").write_text("b=1\n")
    tc = Toolchain(name="t", folder=tmp_path, requires=(), version_commands=(),
                   build_commands=(), inputs=("src/main/resources/**",), outputs=())
    tools = ToolEnv()
    before = cache_key(tc, tools, {})
    (resources / "application.properties").write_text("a=2\n")
    after = cache_key(tc, tools, {})
    assert after != before
    (resources / "nested" / "b.properties").write_text("b=2\n")
    assert cache_key(tc, tools, {}) != after
