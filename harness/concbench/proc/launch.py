"""How a contender process is launched: its command and its environment."""

from __future__ import annotations

import os

from concbench.manifest import Contender
from concbench.toolchains import ToolEnv


def contender_env(contender: Contender, tools: ToolEnv) -> dict[str, str]:
    """The environment a contender runs in: ours, its toolchain's, its manifest's `env`."""
    return {**os.environ, **tools.env, **contender.env}


def contender_head(contender: Contender, tools: ToolEnv) -> list[str]:
    """The contender's run command, relative paths resolved against its folder."""
    head = tools.expand(contender.run)
    folder = contender.toolchain.folder
    if not os.path.isabs(head[0]) and (folder / head[0]).exists():
        head[0] = str(folder / head[0])
    return head
