"""A digest's *Snooze a week* and *Stop* (value ``v``: ``digest:<subscription id>`` or ``digest-dm``),
answered privately. Snooze skips a DM for 7 days (``Store.snooze_dm``), or settles a channel digest's
next ledger key in advance (``Store.skip_delivery``) so every clock agrees. *Stop* turns the DM off, or
pauses the channel digest (``stopped by <user id>``) until ``subscribe`` resumes it (who may: :mod:`.buttons`)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Literal
from zoneinfo import ZoneInfo

from bot.runtime import Runtime
from bot.slack.commands.context import Caller
from bot.slack.i18n import day_text, t
from bot.slack.views.blocks import Reply
from bot.slack.views.digest import DIGEST_DM_VIEW
from bot.slack.views.messages import text_reply, track_name
from bot.slack.views.subscriptions import dm_paused_text
from bot.store.snapshots import Subscription

SNOOZE_DM_DAYS = 7


def channel_subscription(runtime: Runtime, caller: Caller, view: str) -> Subscription | None:
    """The subscription ``view`` names (``digest:<id>``) in the caller's team and channel, else None."""
    number = view.removeprefix("digest:")
    if not view.startswith("digest:") or not number.isdecimal():
        return None
    sub = runtime.store.get_subscription(int(number), team=caller.team_id)
    return None if sub is None or (caller.channel_id and sub.channel_id != caller.channel_id) else sub


def handle_digest_action(
    runtime: Runtime, caller: Caller, kind: Literal["snooze", "stop"], data: dict[str, str], lang: str | None = None
) -> Reply:
    """The private answer to a digest's ``kind`` button (``data``: its value; ``lang``: default the
    chosen one, else en); another team's or channel's digest, or one gone, "no longer exists". Never raises."""
    return digest_action(runtime, caller, kind, data, lang)[0]


def digest_action(
    runtime: Runtime, caller: Caller, kind: Literal["snooze", "stop"], data: dict[str, str], lang: str | None = None
) -> tuple[Reply, bool]:
    """:func:`handle_digest_action`'s answer, and whether the click changed anything (a channel's
    change is announced there; a repeated *Snooze* of the same digest answers "already snoozed
    until …" and changes nothing, so it is not announced again)."""
    store = runtime.store
    lang = lang or store.get_lang(caller.team_id, caller.user_id) or "en"
    view = str(data.get("v") or "")
    now = datetime.now(UTC)
    if view == DIGEST_DM_VIEW:
        if kind == "snooze":
            until = now + timedelta(days=SNOOZE_DM_DAYS)
            if not store.snooze_dm(caller.team_id, caller.user_id, until):
                return text_reply(t("digest.gone", lang)), False
            dm = store.get_dm(caller.team_id, caller.user_id)  # dates only, in the DM's zone (QA)
            return text_reply(dm_paused_text(dm, lang, now) if dm else t("digest.gone", lang)), dm is not None
        store.set_dm(caller.team_id, caller.user_id, False)
        return text_reply(t("digest.stopped_dm", lang)), True
    sub = channel_subscription(runtime, caller, view)
    if sub is None:
        return text_reply(t("digest.gone", lang)), False
    catalog = runtime.holder.catalog
    name = track_name(catalog, sub.track_id, lang) if catalog.has_track(sub.track_id) else sub.track_id
    if kind == "snooze":
        # Skip the next digest that is still to come: when this week's went out early (run-now),
        # its ledger key is already settled and the snooze applies to the week after.
        schedule = sub.schedule
        fire, again = schedule.next_fire(now), False
        for _ in range(2):
            assert fire is not None  # a weekly schedule always fires again
            key = (sub.team_id, sub.channel_id, sub.track_id, schedule.period_of(fire))
            if store.skip_delivery(*key, reason=f"snoozed by {caller.user_id}", claimed_by=f"user:{caller.user_id}"):
                break
            settled = store.delivery(*key)
            if settled is not None and (settled.error or "").startswith(store.SKIPPED_PREFIX + "snoozed"):
                again = True  # already snoozed by someone: say which digest is skipped, change nothing
                break
            fire = schedule.next_fire(fire + timedelta(minutes=1))
        assert fire is not None
        local = fire.astimezone(ZoneInfo(sub.timezone))
        said = "digest.already_snoozed_channel" if again else "digest.snoozed_channel"
        return text_reply(t(said, lang, track=name, when=f"{_when(local, lang)} {sub.timezone}")), not again
    store.pause_subscription(sub.id, f"stopped by {caller.user_id}")
    return text_reply(t("digest.stopped_channel", lang, track=name, track_id=sub.track_id)), True


def _when(local: datetime, lang: str) -> str:
    """``Saturday 12 Dec 2026 09:00`` / ``2026年12月12日 周六 09:00``: the day as every reply shows it."""
    return f"{day_text(local, lang)} {local:%H:%M}"
