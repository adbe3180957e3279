"""The pure middle: catalog, paths, search, plans, schedules, words. No Slack, no SQL, no network."""
