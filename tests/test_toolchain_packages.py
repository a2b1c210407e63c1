"""A manifest's `[toolchain] packages` value may name several Debian packages, installed by one
`apt-get install` when the tool is missing and concbench runs as root (harness/concbench/tools.py):
erlang's erl and erlc come with erlang-yaws, so a fresh machine gets Yaws for erlang-yaws with the
toolchain (issue 45), and CI installs it up front like the other toolchains' packages."""

from __future__ import annotations

import re
from types import SimpleNamespace

from concbench import manifest, paths, tools


def test_several_packages_are_one_apt_get_install(tmp_path, monkeypatch):
    calls: list[list[str]] = []

    def run(argv, **_kw):
        calls.append(list(argv))
        return SimpleNamespace(returncode=0)

    monkeypatch.setattr(tools.subprocess, "run", run)
    assert tools._apt_install("erlang-inets erlang-yaws", tmp_path / "install.log")
    assert calls == [["apt-get", "install", "-y", "-q", "erlang-inets", "erlang-yaws"]]


def test_one_package_is_installed_as_before(tmp_path, monkeypatch):
    calls: list[list[str]] = []
    codes = iter([100, 0, 0])  # not found, then apt-get update, then found

    def run(argv, **_kw):
        calls.append(list(argv))
        return SimpleNamespace(returncode=next(codes))

    monkeypatch.setattr(tools.subprocess, "run", run)
    assert tools._apt_install("nodejs", tmp_path / "install.log")
    assert calls == [["apt-get", "install", "-y", "-q", "nodejs"], ["apt-get", "update", "-q"],
                     ["apt-get", "install", "-y", "-q", "nodejs"]]


def test_the_erlang_toolchain_brings_yaws_and_ci_installs_it():
    erlang = manifest.discover(paths.REPO_ROOT / "contenders")["erlang-yaws"].toolchain
    assert set(erlang.requires) == {"erl", "erlc"}
    for tool in erlang.requires:
        assert erlang.packages[tool].split() == ["erlang-inets", "erlang-yaws"], tool
    ci = (paths.REPO_ROOT / ".ci" / "run").read_text()
    listed = re.search(r"^PACKAGES=\(([^)]*)\)", ci, re.M)
    assert listed and {"erlang-inets", "erlang-yaws"} <= set(listed.group(1).split())
