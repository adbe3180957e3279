"""Use cases, one module per command kind, found through one table (:mod:`.registry`).

A use case is a plain function ``(Context, command or button value) -> Reply``: the
:class:`~bot.slack.commands.context.Context` says who asks, in which language, with the
runtime; the use case calls the domain (catalog, paths, search, store) and returns what the
views render (shared replies: :mod:`.replies`). Dispatch is a dictionary look-up
(:func:`run_command`, :func:`run_button`), not a chain of ``if``.
"""
