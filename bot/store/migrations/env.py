"""Alembic environment for vllm-path's store.

Run programmatically by :func:`bot.store.migrate` (which hands over a connection through
``config.attributes["connection"]``), or by developers with
``alembic -c bot/store/migrations/alembic.ini upgrade head`` / ``revision --autogenerate``; then the
URL is ``sqlalchemy.url`` if set, else ``DATABASE_URL`` read through :class:`bot.config.Settings`.
Only the app's own tables are compared: APScheduler's ``apscheduler_jobs`` (created at run time)
and anything else in the database are left alone.
"""

from __future__ import annotations

from logging.config import fileConfig

from alembic import context
from sqlalchemy import Connection

from bot.store.models import APP_TABLES, metadata

config = context.config
if config.config_file_name is not None:  # the developers' alembic.ini, not bot.store.migrate()
    fileConfig(config.config_file_name, disable_existing_loggers=False)
target_metadata = metadata


def include_name(name: str | None, type_: str, parent_names: object) -> bool:
    """Autogenerate looks only at the tables of the app's :data:`~bot.store.models.metadata`."""
    if type_ == "table":
        return name in APP_TABLES
    return True


def _url() -> str:
    url = config.get_main_option("sqlalchemy.url")
    if url:
        return url
    from bot.config import Settings

    return Settings().database_url


def _run(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        include_name=include_name,
        compare_type=True,
        render_as_batch=connection.dialect.name == "sqlite",
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_offline() -> None:
    from bot.config import sqlalchemy_url

    context.configure(
        url=sqlalchemy_url(_url()),
        target_metadata=target_metadata,
        include_name=include_name,
        literal_binds=True,
        dialect_opts={"paramstyle": "named"},
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        _run(connection)
        return
    from bot.store.db import make_engine

    engine = make_engine(_url())
    try:
        with engine.connect() as connection:
            _run(connection)
            connection.commit()
    finally:
        engine.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
