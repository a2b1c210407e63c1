"""`concbench history`: past result sets from the store, newest first, filtered."""

from __future__ import annotations

import json

from rich.console import Console
from rich.table import Table as RichTable

from concbench.resultset.store import HistoryFilter, Store

HEADERS = ("run id", "created", "revision", "plan", "runs", "ok", "failed", "workloads",
           "contenders")


def rows(store: Store, f: HistoryFilter) -> list[tuple[str, ...]]:
    found = []
    for run_id, created, revision, plan, runs, ok, workloads, contenders in store.history(f):
        try:
            name = json.loads(plan).get("name", "?") if plan else "?"
        except ValueError:
            name = "?"
        found.append((run_id, created or "", (revision or "")[:12], name, str(runs), str(ok),
                      str(int(runs) - int(ok)), workloads or "", contenders or ""))
    return found


def show(console: Console, location: str, f: HistoryFilter) -> int:
    """Print the history table; returns how many result sets it listed."""
    store = Store(location)
    try:
        found = rows(store, f)
    finally:
        store.close()
    if not found:
        console.print("no stored runs match (every `run` and `suite` adds to the store)")
        return 0
    table = RichTable(title=f"history ({len(found)} result sets, newest first)",
                      title_justify="left")
    for header in HEADERS:
        table.add_column(header, overflow="fold")
    for row in found:
        style = "red" if row[6] != "0" else "green"
        table.add_row(*row[:6], f"[{style}]{row[6]}[/]", *row[7:])
    console.print(table)
    return len(found)
