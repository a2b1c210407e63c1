"""async-profiler (Maven Central, tools.profiler:async-profiler) in a JVM: loaded into a
running server with `jcmd PID JVMTI.agent_load` for the measured window, or at JVM start
through JAVA_TOOL_OPTIONS for a batch run (it writes its profile when the JVM exits). CPU mode
samples running threads (perf_events where allowed, else itimer); wall-clock mode samples
every thread, running or parked, which is where virtual-thread carriers and pools wait."""

from __future__ import annotations

import hashlib
import platform
import subprocess
import urllib.request
import zipfile
from pathlib import Path
from typing import Any

from concbench import paths
from concbench.profiling.base import ProfileError, summary

VERSION = "4.2"
JAR_URL = ("https://repo1.maven.org/maven2/tools/profiler/async-profiler/"
           f"{VERSION}/async-profiler-{VERSION}.jar")
INTERVAL = {"cpu": "10ms", "wall": "20ms"}
JCMD_TIMEOUT_S = 60
_ARCH = {"x86_64": "linux-x64", "amd64": "linux-x64", "aarch64": "linux-arm64"}


def library() -> Path:
    return paths.cache_dir() / "tools" / f"async-profiler-{VERSION}" / "libasyncProfiler.so"


def ensure_library() -> str | None:
    """Download the jar from Maven Central once (checked against its .sha1) and keep the
    native library for this machine; None when it is here, else why not."""
    target = library()
    if target.exists():
        return None
    arch = _ARCH.get(platform.machine().lower())
    if arch is None:
        return f"async-profiler has no library for {platform.machine()} in {JAR_URL}"
    target.parent.mkdir(parents=True, exist_ok=True)
    jar = target.with_name(f"async-profiler-{VERSION}.jar")
    try:
        with urllib.request.urlopen(JAR_URL, timeout=120) as resp:
            data = resp.read()
        with urllib.request.urlopen(JAR_URL + ".sha1", timeout=60) as resp:
            expected = resp.read().decode().split()[0]
    except OSError as err:
        return f"cannot download async-profiler from {JAR_URL}: {err}"
    if hashlib.sha1(data).hexdigest() != expected:
        return f"async-profiler jar from {JAR_URL} does not match its .sha1"
    jar.write_bytes(data)
    with zipfile.ZipFile(jar) as zf:
        part = target.with_suffix(".part")
        part.write_bytes(zf.read(f"{arch}/libasyncProfiler.so"))
        part.replace(target)
    return None


class AsyncProfiler:
    name = "async-profiler"

    def __init__(self, jcmd: Path, folder: Path, stem: str, mode: str):
        self.jcmd, self.folder, self.stem, self.mode = jcmd, folder, stem, mode
        self.folded = folder / f"{stem}.{mode}.folded"
        self._pid: int | None = None

    def missing(self) -> str | None:
        if not self.jcmd.exists():
            return f"jcmd not found at {self.jcmd} (it comes with the JDK the contender runs on)"
        return ensure_library()

    def _options(self, action: str) -> str:
        if action == "start":
            log = self.folder / f"{self.stem}.{self.mode}.log"
            return f"start,event={self.mode},interval={INTERVAL[self.mode]},file={log}"
        return f"stop,collapsed,file={self.folded}"

    def launch(self, argv: list[str], env: dict[str, str]) -> tuple[list[str], dict[str, str]]:
        """For a batch run: the agent starts with the JVM and writes the profile at exit."""
        self.folder.mkdir(parents=True, exist_ok=True)
        # log=: the agent's own messages ("Profiling started") go to a file; on stdout they
        # would break the contender's JSON-lines stream and the profiled run would be invalid
        log = self.folder / f"{self.stem}.{self.mode}.log"
        agent = (f"-agentpath:{library()}=start,event={self.mode},interval={INTERVAL[self.mode]},"
                 f"collapsed,file={self.folded},log={log}")
        options = f"{env.get('JAVA_TOOL_OPTIONS', '')} {agent}".strip()
        return argv, {**env, "JAVA_TOOL_OPTIONS": options}

    def _agent(self, pid: int, options: str) -> None:
        # jcmd parses its arguments as `key=value` options: unquoted, "start,event=cpu" reaches
        # the agent as an empty string ("event must not be empty", return code 100)
        argv = [str(self.jcmd), str(pid), "JVMTI.agent_load", str(library()), f'"{options}"']
        try:
            done = subprocess.run(argv, capture_output=True, text=True, timeout=JCMD_TIMEOUT_S)
        except (OSError, subprocess.TimeoutExpired) as err:
            raise ProfileError(f"jcmd JVMTI.agent_load failed: {err}") from None
        if done.returncode != 0 or "return code: 0" not in done.stdout:
            raise ProfileError("jcmd JVMTI.agent_load failed: "
                               f"{(done.stdout + done.stderr).strip()[-300:]}")

    def start(self, pid: int) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        self._agent(pid, self._options("start"))
        self._pid = pid

    def stop(self) -> dict[str, Any]:
        if self._pid is not None:  # attached: stop and dump; a batch JVM dumped at its exit
            self._agent(self._pid, self._options("stop"))
        if not self.folded.exists():
            raise ProfileError(f"async-profiler wrote no profile to {self.folded}")
        return summary(self.name, self.mode, self.folded,
                       self.folder / f"{self.stem}.{self.mode}.svg", self.folder.parent)
