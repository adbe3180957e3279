"""Pages outside Slack, served by the HTTP door: install, its success and error pages, and ``/paths``.
Server-rendered with Jinja2 (autoescaped), no JavaScript; the catalog and the app's facts, never a reader's."""
