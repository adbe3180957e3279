"""The repository API: :class:`Store`, one facade over the state's aggregates.

Each aggregate lives in its own module and adds its methods to :class:`~bot.store.base.StoreCore`:

============================  ==============================================================
module                        aggregate
============================  ==============================================================
:mod:`bot.store.progress`     reading progress (posts read, when)
:mod:`bot.store.follows`      track follows
:mod:`bot.store.settings`     per-user language and DM digest settings
:mod:`bot.store.subscriptions`  channel subscriptions (schedule, cursor, pause)
:mod:`bot.store.ledger`       the digest delivery ledger (claim, sent, failed, skipped)
:mod:`bot.store.events`       Slack event de-duplication
:mod:`bot.store.catalog_versions`  catalog versions seen and their path snapshots
:mod:`bot.store.feed_notices`  blog posts the feed watch announced to the catalog admins
:mod:`bot.store.installations`  Slack installations, uninstall and reinstall
:mod:`bot.store.reader`       one person's language, reads and follows in one round trip
:mod:`bot.store.reminders`    reminders of a post on a chosen day (issue 15)
:mod:`bot.store.insights`     reads and delivery outcomes of a team, for admins' insights
:mod:`bot.store.plans`        weekly reading budgets and finished essential paths (issue 24)
============================  ==============================================================

Each method opens its own short transaction and returns plain frozen dataclasses
(:mod:`bot.store.snapshots`), sets, lists or booleans, never live ORM objects, so callers never
hold a session. Every method that reads or writes per-workspace data takes the Slack team id first.
Writes are idempotent: repeating one changes nothing (and reports that nothing changed). Times are
timezone-aware UTC ``datetime`` values; durations are seconds.

Errors: :class:`ValueError` for invalid arguments (checked before touching the database);
:class:`sqlalchemy.exc.SQLAlchemyError` subclasses for database failures (connection lost beyond
the pool's pre-ping, lock timeouts).
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
    """The app's state, behind small methods that each run one short transaction. Built as
    :class:`~bot.store.base.StoreCore` is (its arguments are documented there); the methods are
    documented in the aggregate modules listed in this module's docstring."""
