"""Use cases by command kind, found through one table (:mod:`.registry`): plain functions
``(Context, command or button value) -> Reply`` over the domain; shared replies: :mod:`.replies`."""
