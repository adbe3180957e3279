"""The clock's cron jobs in APScheduler's job store, kept in line with the database: one per
active subscription (``sub:<id>``) and DM digest (``dm:<team>:<user>``), named by its schedule's
signature so that an unchanged schedule keeps its next run time.
"""

from __future__ import annotations

import logging
from collections import Counter
from datetime import UTC, datetime
from typing import Any

from apscheduler.jobstores.base import ConflictingIdError, JobLookupError
from apscheduler.jobstores.sqlalchemy import SQLAlchemyJobStore
from apscheduler.schedulers.base import BaseScheduler

from bot.domain.schedule import WeeklySchedule
from bot.store import Store

log = logging.getLogger(__name__)

JOBSTORE = "default"
"""The job store (the app's database) holding the cron jobs."""
FAR_FUTURE = datetime(9999, 1, 1, tzinfo=UTC)


Jobs = dict[str, tuple[str, tuple[Any, ...], WeeklySchedule]]
"""``{job id: (function ref, args, schedule)}``."""


def desired_jobs(store: Store, sub_func: str, dm_func: str) -> Jobs:
    """The jobs ``store`` asks for: ``sub:<id>`` runs ``sub_func(id)``, ``dm:<team>:<user>`` ``dm_func``."""
    out: Jobs = {}
    for sub in store.active_subscriptions():
        out[f"sub:{sub.id}"] = (sub_func, (sub.id,), sub.schedule)
    for dm in store.dm_recipients(at=FAR_FUTURE):
        out[f"dm:{dm.team_id}:{dm.user_id}"] = (dm_func, (dm.team_id, dm.user_id), dm.schedule)
    return out


def sync_jobs(scheduler: BaseScheduler, desired: Jobs) -> None:
    """Add, reschedule and remove ``scheduler``'s cron jobs to match ``desired``, logging the counts."""
    done: Counter[str] = Counter()
    existing = {job.id: job for job in scheduler.get_jobs(jobstore=JOBSTORE) if job.id.startswith(("sub:", "dm:"))}
    for job_id in existing.keys() - desired.keys():
        try:
            scheduler.remove_job(job_id, jobstore=JOBSTORE)
            done["removed"] += 1
        except JobLookupError:  # another clock process removed it first
            pass
    for job_id, (func, args, schedule) in desired.items():
        sig = schedule.signature
        job = existing.get(job_id)
        if job is not None and job.name == sig and tuple(job.args) == args:
            continue
        try:
            scheduler.add_job(
                func, schedule.trigger, args=args, id=job_id, name=sig, jobstore=JOBSTORE, replace_existing=True
            )
        except (ConflictingIdError, JobLookupError):  # a concurrent clock got there first
            continue
        done["added" if job is None else "updated"] += 1
    if done:
        log.info("digest jobs: +%d ~%d -%d", done["added"], done["updated"], done["removed"])


def create_jobstore_table(jobstore: SQLAlchemyJobStore) -> None:
    """Create APScheduler's table, tolerating another clock creating it at the same moment.

    The check and the ``CREATE TABLE`` run in one write transaction (:func:`bot.store.db.write_connection`:
    ``BEGIN IMMEDIATE`` on SQLite), so a busy database is waited for rather than failing the upgrade
    from a read lock. Raises the last ``sqlalchemy.exc`` error after three tries."""
    from sqlalchemy.exc import IntegrityError, OperationalError, ProgrammingError

    from bot.store.db import write_connection

    for attempt in range(3):
        try:
            with write_connection(jobstore.engine) as conn:
                jobstore.jobs_t.create(conn, checkfirst=True)
            return
        except (IntegrityError, ProgrammingError, OperationalError):
            if attempt == 2:
                raise
