"""The multi-host options read as a user writes them: host specs, hosts files, and bad input
answered with a message and exit 2 before anything runs (no SSH needed)."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest

from concbench.errors import UserError
from concbench.remote.hosts import resolve, roles_from
from concbench.remote.ssh import CONTROL_NAME_LEN, SOCKET_PATH_MAX, classify, control_folder


def test_a_spec_gives_user_address_and_port():
    host = resolve("bench@10.1.2.3:2222", "--server-host", None, None)
    assert (host.user, host.address, host.port) == ("bench", "10.1.2.3", 2222)
    assert host.reach_for(8080) == ("10.1.2.3", 8080)


def test_a_name_comes_from_the_hosts_file(tmp_path: Path):
    f = tmp_path / "hosts.toml"
    f.write_text('[hosts.srv]\naddress = "198.18.0.2"\nuser = "root"\ncpus = "0-1"\n'
                 'serve_port = 18080\nreach = "198.18.0.12:18081"\n')
    roles = roles_from("srv", None, None, str(f), None)
    assert roles.server.address == "198.18.0.2" and roles.server.cpus == "0-1"
    assert roles.server.reach_for(18080) == ("198.18.0.12", 18081)
    assert roles.client is None and roles.remote


@pytest.mark.parametrize("text, words", [
    ('[hosts.a]\nuser = "x"\n', "needs an address"),
    ('[hosts.a]\naddress = "h"\nbogus = 1\n', "unknown keys"),
    ('[hosts.a]\naddress = "h"\nreach = "x:1"\n', "reach needs serve_port"),
    ("not toml [", "not valid TOML"),
    ('[hosts.a]\naddress = "h"\ncpus = "x-1"\n', "give CPU numbers"),
    ('[hosts.a]\naddress = "h"\nsources = ["198.18.0.300"]\n', "IPv4 addresses"),
    ('[hosts.a]\naddress = "h"\nsources = "198.18.0.13"\n', "IPv4 addresses"),
    ('[hosts.a]\naddress = "h"\n[roles]\nx = 1\n', "unknown tables"),
])
def test_a_bad_hosts_file_is_a_user_error(tmp_path: Path, text: str, words: str):
    f = tmp_path / "hosts.toml"
    f.write_text(text)
    with pytest.raises(UserError, match=words):
        roles_from("a", None, None, str(f), None)


def test_bad_options_exit_2_with_a_message(cli):
    for args in (["--server-host", "bad host!"], ["--hosts-file", "/nonexistent/hosts.toml",
                                                  "--server-host", "x"]):
        res = cli("run", "http-hello", "--contender", "fake-server", *args)
        assert res.code == 2 and "Traceback" not in res.stderr, res.stderr
        assert "--server-host" in res.stderr or "hosts-file" in res.stderr


def test_ssh_failures_read_as_what_to_do():
    host = resolve("root@198.18.0.9", "--server-host", None, "/tmp/kh")
    assert "does not match" in classify(host, "Host key verification failed.")
    assert "key refused" in classify(host, "root@198.18.0.9: Permission denied (publickey).")
    assert "unreachable" in classify(host, "ssh: connect to host 198.18.0.9 port 22: No route "
                                           "to host")


def test_a_remote_client_needs_a_remote_server():
    with pytest.raises(UserError, match="needs --server-host"):
        roles_from(None, "root@198.18.0.3", None, None, None)


def test_several_clients_come_from_the_options_or_a_group(tmp_path: Path):
    f = tmp_path / "hosts.toml"
    f.write_text('[hosts.srv]\naddress = "198.18.0.2"\n[hosts.c1]\naddress = "198.18.0.3"\n'
                 '[hosts.c2]\naddress = "198.18.0.5"\n[groups]\nload = ["c1", "c2"]\n')
    given = roles_from("srv", ["c1", "root@198.18.0.6"], None, str(f), None)
    assert [h.address for h in given.clients] == ["198.18.0.3", "198.18.0.6"]
    grouped = roles_from("srv", "load", None, str(f), None)
    assert [h.name for h in grouped.clients] == ["c1", "c2"]
    assert [h.name for h in grouped.distinct()] == ["srv", "c1", "c2"]
    with pytest.raises(UserError, match="given twice"):
        roles_from("srv", ["load", "c2"], None, str(f), None)
    f.write_text(f.read_text().replace('load = ["c1", "c2"]', "load = 3"))
    with pytest.raises(UserError, match=r"\[groups\]"):
        roles_from("srv", "load", None, str(f), None)


def test_several_clients_with_wrk_exit_2_before_anything_runs(cli):
    res = cli("run", "http-hello", "--contender", "fake-server", "--param", "loadgen=wrk",
              "--server-host", "root@198.18.0.2", "--client-host", "root@198.18.0.3",
              "--client-host", "root@198.18.0.5")
    assert res.code == 2 and "Traceback" not in res.stderr, res.stderr
    said = " ".join(res.stderr.split())
    assert "over 2 client hosts needs --param loadgen=oha" in said and "cannot be merged" in said


def test_the_control_socket_folder_is_short_enough_whatever_tmpdir_says(tmp_path, monkeypatch):
    """A deep TMPDIR would make ssh's control socket path too long for a Unix socket (ssh then
    refuses to connect): the folder falls back to /tmp; a short one stays where it is."""
    deep = tmp_path / ("d" * 60)
    deep.mkdir()
    short = Path(tempfile.mkdtemp(prefix="cb-", dir="/tmp"))
    made = []
    try:
        for where in (deep, short):
            monkeypatch.setattr(tempfile, "tempdir", str(where))
            folder = control_folder()
            made.append(folder)
            assert len(str(folder)) + CONTROL_NAME_LEN <= SOCKET_PATH_MAX
        assert made[0].parent == Path("/tmp") and made[1].parent == short
        assert list(deep.iterdir()) == []
    finally:
        for folder in made:
            shutil.rmtree(folder, ignore_errors=True)
        shutil.rmtree(short, ignore_errors=True)
