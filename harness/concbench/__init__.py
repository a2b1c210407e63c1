"""concbench: a benchmark lab for concurrency runtimes."""

__version__ = "0.1.0"
