"""The app's state: SQLAlchemy 2 Core tables (no ORM), Alembic migrations and the :class:`Store` repository
(``Store.from_url(Settings().database_url)`` migrates to head). SQLite by default (a file in the
working directory); PostgreSQL through ``DATABASE_URL`` (``postgres://`` uses psycopg 3).
"""

from bot.store.db import make_engine, migrate, utcnow
from bot.store.installations import UNINSTALLED
from bot.store.models import DM_TRACK, metadata
from bot.store.reader import ReaderState
from bot.store.repo import Store
from bot.store.snapshots import Delivery, DmSettings, Subscription

__all__ = [
    "DM_TRACK",
    "UNINSTALLED",
    "Delivery",
    "DmSettings",
    "ReaderState",
    "Store",
    "Subscription",
    "make_engine",
    "metadata",
    "migrate",
    "utcnow",
]
