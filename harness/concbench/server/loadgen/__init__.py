"""Load generators, one module each behind server.loadgen.base.LoadGenerator."""

from __future__ import annotations

from concbench.server.loadgen.base import LoadError, LoadGenerator, LoadResult, LoadSpec
from concbench.server.loadgen.oha import Oha
from concbench.server.loadgen.wrk import Wrk

GENERATORS: dict[str, LoadGenerator] = {g.name: g for g in (Wrk(), Oha())}

__all__ = ["GENERATORS", "LoadError", "LoadGenerator", "LoadResult", "LoadSpec"]
