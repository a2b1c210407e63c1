"""A result set (one results.json): the model (frozen dataclasses), its JSON form (DESIGN.md §5),
the recorder that keeps it on disk, and the run store."""
