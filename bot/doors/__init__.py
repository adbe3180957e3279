"""The ways in: the HTTP / Socket Mode server and the local console (with the Slack stand-in)."""
