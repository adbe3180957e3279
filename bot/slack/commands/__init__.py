"""Use cases, one module per command kind, found through one table (:mod:`.registry`): plain
functions ``(Context, command or button value) -> Reply`` that call the domain (catalog, paths,
search, store) with the request's :class:`~bot.slack.commands.context.Context` and return what
the views render (shared replies: :mod:`.replies`).
"""
