"""Bolt listeners by kind: module-level functions taking Bolt's arguments (``ack``, ``body``,
``respond``, ``client``, ``context`` …), attached by each module's ``register(app)``. They parse the
Slack payload, call the app's :class:`bot.slack.handlers.Handlers` (from Bolt's ``context``:
:mod:`bot.slack.listeners.context`) and send the rendered reply."""
