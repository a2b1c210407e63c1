"""`concbench history`: past result sets from the store, newest first, filtered."""

from __future__ import annotations

import datetime
import json
import re

from rich.console import Console
from rich.table import Table as RichTable

from concbench.errors import UserError
from concbench.resultset.store import HistoryFilter, Store

SINCE_FORMS = "YYYY-MM-DD, or YYYY-MM-DDTHH:MM[:SS] (UTC unless an offset such as +02:00 follows)"
"""What --since accepts: the forms results' created_at sorts against as text."""
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_DATE_TIME = re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2})?(Z|[+-]\d{2}:\d{2})?")

HEADERS = ("run id", "created", "revision", "plan", "runs", "ok", "failed", "workloads",
           "contenders")


def since_bound(text: str) -> str:
    """--since as the store compares it (created_at is UTC ISO text, compared as text): a
    date as given, a time turned into UTC; anything else is bad input, not a filter that
    silently matches nothing."""
    try:
        if _DATE.fullmatch(text):
            return datetime.date.fromisoformat(text).isoformat()
        if _DATE_TIME.fullmatch(text):
            at = datetime.datetime.fromisoformat(text)
            at = at.replace(tzinfo=datetime.timezone.utc) if at.tzinfo is None else at
            return at.astimezone(datetime.timezone.utc).isoformat(timespec="seconds")
    except ValueError:
        pass
    raise UserError(f"--since {text!r} is not a date: give {SINCE_FORMS}")


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
