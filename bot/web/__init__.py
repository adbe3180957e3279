"""Pages outside Slack, served by the HTTP door: the install page, the install's success and error
pages, and the public path pages (``/paths``). Server-rendered with Jinja2 (autoescaped), no
JavaScript; they show the catalog and the app's own facts, never a reader's data."""
