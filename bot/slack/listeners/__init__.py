"""Bolt listeners by kind: module-level functions taking Bolt's arguments, attached by each
module's ``register(app)``. They parse the Slack payload, call the app's
:class:`bot.slack.handlers.Handlers` (:mod:`bot.slack.listeners.context`) and send the reply."""
