"""Statistics: per-sample summaries and per-cell aggregation."""
