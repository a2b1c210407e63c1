"""Results: the model (frozen dataclasses), its JSON form (DESIGN.md §5), the run store."""
