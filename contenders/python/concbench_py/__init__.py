"""The Python (asyncio / uvloop) contender of concbench; see main.py and contenders.toml."""
