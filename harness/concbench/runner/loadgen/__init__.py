"""Load generators, one module each behind runner.loadgen.base.LoadGenerator."""

from __future__ import annotations

from concbench.runner.loadgen.base import LoadError, LoadGenerator, LoadResult, LoadSpec
from concbench.runner.loadgen.oha import Oha
from concbench.runner.loadgen.wrk import Wrk

GENERATORS: dict[str, LoadGenerator] = {g.name: g for g in (Wrk(), Oha())}

__all__ = ["GENERATORS", "LoadError", "LoadGenerator", "LoadResult", "LoadSpec"]
