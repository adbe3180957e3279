"""Bolt listeners by kind. Each module has ``register(app, handlers)``: parse the Slack payload,
call :class:`bot.slack.handlers.Handlers`, send the rendered reply."""
