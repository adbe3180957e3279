"""Bolt listeners by kind, attached by each module's ``register(app)``: they parse the Slack
payload, call the app's :class:`bot.slack.handlers.Handlers` and send the reply."""
