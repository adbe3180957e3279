"""The app's state: SQLAlchemy 2 models, Alembic migrations and the :class:`Store` repository.

Typical use::

    from bot.config import Settings
    from bot.store import Store

    store = Store.from_url(Settings().database_url)   # migrates to head, then ready
    store.mark_read("T1", "U1", ["post-a"])            # -> {"post-a"}

SQLite by default (a file in the working directory, created on first run); PostgreSQL through
``DATABASE_URL`` (``postgres://`` URLs use the psycopg 3 driver).
"""

from bot.store.db import make_engine, migrate, utcnow
from bot.store.installations import UNINSTALLED
from bot.store.models import DM_TRACK, Base
from bot.store.reader import ReaderState
from bot.store.repo import Store
from bot.store.snapshots import Delivery, DmSettings, Subscription

__all__ = [
    "DM_TRACK",
    "UNINSTALLED",
    "Base",
    "Delivery",
    "DmSettings",
    "ReaderState",
    "Store",
    "Subscription",
    "make_engine",
    "migrate",
    "utcnow",
]
