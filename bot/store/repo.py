"""The repository API: :class:`Store`, one facade over the state's aggregates, each a module that
adds its methods to :class:`~bot.store.base.StoreCore` (progress, follows, settings, subscriptions,
ledger, events, catalog versions, feed notices, installations, reader, reminders, insights, plans).

Each method runs its own short transaction and returns plain frozen dataclasses
(:mod:`bot.store.snapshots`), sets, lists or booleans, never live ORM objects. Per-workspace
methods take the Slack team id first. Writes are idempotent. Times are aware UTC ``datetime``
values; durations are seconds. Errors: :class:`ValueError` for invalid arguments (checked before
touching the database); :class:`sqlalchemy.exc.SQLAlchemyError` subclasses for database failures.
"""

from __future__ import annotations

from bot.store.catalog_versions import CatalogVersionsRepo
from bot.store.events import EventsRepo
from bot.store.feed_notices import FeedNoticesRepo
from bot.store.follows import FollowsRepo
from bot.store.insights import InsightsRepo
from bot.store.installations import InstallationsRepo
from bot.store.ledger import LedgerRepo
from bot.store.plans import PlansRepo
from bot.store.progress import ProgressRepo
from bot.store.reader import ReaderRepo
from bot.store.reminders import RemindersRepo
from bot.store.settings import SettingsRepo
from bot.store.subscriptions import SubscriptionsRepo


class Store(
    ProgressRepo,
    FollowsRepo,
    SettingsRepo,
    SubscriptionsRepo,
    LedgerRepo,
    EventsRepo,
    CatalogVersionsRepo,
    FeedNoticesRepo,
    InstallationsRepo,
    ReaderRepo,
    RemindersRepo,
    InsightsRepo,
    PlansRepo,
):
    """The app's state; built as :class:`~bot.store.base.StoreCore` is (arguments documented there)."""
