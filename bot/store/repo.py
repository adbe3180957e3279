"""The repository API: :class:`Store`, one facade over the state's aggregates, each a module that
adds its methods to :class:`~bot.store.base.StoreCore`: :mod:`~bot.store.reading` (one reader's
language, reads, follows, budget, finished paths, reminders), :mod:`~bot.store.subscriptions`
(channel subscriptions, DM digest settings), :mod:`~bot.store.ledger` (deliveries),
:mod:`~bot.store.installations` (Slack installs and tokens), :mod:`~bot.store.reader` (one
reader's state in one read) and :mod:`~bot.store.housekeeping` (catalog versions, feed notices,
Slack event ids, insights and operators' counts), :mod:`~bot.store.together` (reading clubs,
plan pauses, nudges).

Each method runs its own short transaction and returns plain frozen dataclasses
(:mod:`bot.store.snapshots`), sets, lists or booleans, never database rows. Per-workspace
methods take the Slack team id first. Writes are idempotent. Times are aware UTC ``datetime``
values; durations are seconds. Errors: :class:`ValueError` for invalid arguments (checked before
touching the database); :class:`sqlalchemy.exc.SQLAlchemyError` subclasses for database failures.
"""

from __future__ import annotations

from bot.store.housekeeping import HousekeepingRepo
from bot.store.installations import InstallationsRepo
from bot.store.ledger import LedgerRepo
from bot.store.reader import ReaderRepo
from bot.store.reading import ReadingRepo
from bot.store.subscriptions import SubscriptionsRepo
from bot.store.together import TogetherRepo


class Store(TogetherRepo, ReadingRepo, SubscriptionsRepo, LedgerRepo, InstallationsRepo, ReaderRepo, HousekeepingRepo):
    """The app's state; built as :class:`~bot.store.base.StoreCore` is (arguments documented there)."""
