"""The language a reader last typed in, for a command that holds none (QA round 20: ``量化`` then
``next`` answered ``next`` in English). In automatic language mode (no ``lang en|zh`` chosen) a
reply is Chinese when the text typed holds Chinese; a *neutral* command, the command words alone
(``next``, ``settings please``, ``stats``, ``help``), keeps the language of the last text that had
one, remembered with the person's ``users.info`` (:class:`~bot.slack.commands.context.UserInfoCache`,
in this process and for its time to live); text with other Latin words (``nixl``, ``next quant``,
``what is prefix caching``) forgets it, so the Slack locale decides again, as before."""

from __future__ import annotations

from bot.slack.grammar import KEYWORDS, LANG_WORDS
from bot.slack.grammar_phrases import END_MARKS

COMMAND_WORDS = frozenset(
    {k for k in KEYWORDS if k.isascii() and k.isalpha()}
    | {"settings", "preferences", "prefs", "tracks", "recommend", "recommendations", "stop", "snooze", "unsnooze"}
    | {"on", "off", "pause", "resume", "status", "catchup", "all", "home", "commands", "cancel", "what's"}
    | {"please", "pls", "plz", "me", "my", "the", "show", "list", "now", "thanks", "new", "latest"}
    | {w for w in LANG_WORDS if w.isascii()}
)
"""Latin words that carry no language of their own in a command: the grammar's command words and
the polite words around them (:mod:`bot.slack.grammar_polite`)."""

_TRIM = END_MARKS + "/`'\"()[]<>*_~"


def is_neutral(typed: str) -> bool:
    """Whether ``typed`` holds no word of a language beyond command words (:data:`COMMAND_WORDS`),
    numbers and punctuation: ``next``, ``/next``, ``stats``, ``reminders cancel 2``, ``""``; not
    ``nixl``, ``next quant`` (a track's id is Latin text) nor any Chinese (checked before)."""
    for word in typed.split():
        bare = word.casefold().strip(_TRIM)
        if bare and any(c.isalpha() for c in bare) and bare not in COMMAND_WORDS:
            return False
    return True
