"""The CSV layout of seed 002 (bench-of-chan's run.sh): program,etype,worker,event,time,speed.

One row per channel cell, so concbench's figures can sit beside the published ones: `time` is
the median measured iteration in seconds, `speed` the events per second that time gives
(workers × events ÷ time), as the seed computes it. A cell without ok runs keeps its row with
time and speed left empty: it has no figure. Empty output when the results hold no channel
cells (the file is then not written).
"""

from __future__ import annotations

import csv
import io

from concbench.resultset.model import ResultsDocument

HEADER = ("program", "etype", "worker", "event", "time", "speed")


def serialize(doc: ResultsDocument) -> bytes:
    cells = [c for c in doc.cells if c.workload == "channel"]
    if not cells:
        return b""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(HEADER)
    for cell in cells:
        p = cell.params
        elapsed = cell.stats.get("elapsed_s")
        time = f"{elapsed.median:.3f}" if elapsed else ""
        speed = f"{p['workers'] * p['events'] / elapsed.median:.0f}" if elapsed else ""
        writer.writerow([cell.contender, p["etype"], p["workers"], p["events"], time, speed])
    return out.getvalue().encode()
