"""Where curators' review cards go (:func:`bot.digest.sources.post_draft_cards`): the tenant whose
token posts them and whose settings hold the curators' language.

``CATALOG_ADMIN_TEAM`` names it (a workspace ``T…`` or an org ``E…``); unset, a single installation
is the one. A workspace of an org-wide install is the org's (tokens and settings are kept under the
enterprise id there). With one bot token (``SLACK_BOT_TOKEN``) the token's own team is asked once
(``auth.test``). When no card can be sent, one WARNING line says why, once per reason and process.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass

from sqlalchemy import select

from bot.digest.clients import Clients
from bot.runtime import Runtime
from bot.store.installations import tenant_of

log = logging.getLogger(__name__)

_warned: set[str] = set()
_lock = threading.Lock()
_token_tenant: dict[str, str] = {}


@dataclass(frozen=True)
class CuratorTenant:
    """``tenant`` the cards are posted in (None: nowhere), and ``why`` not when None."""

    tenant: str | None
    why: str = ""


def _installations(runtime: Runtime) -> list[tuple[str | None, str | None, bool]]:
    """``(enterprise id, team id, org-wide)`` of each installation with a bot token (this app's)."""
    inst = runtime.store.installation_store()
    c = inst.bots.c
    stmt = select(c.enterprise_id, c.team_id, c.is_enterprise_install).where(
        c.client_id == inst.client_id, c.bot_token.is_not(None)
    )
    with inst.engine.connect() as conn:
        rows = conn.execute(stmt).all()
    return [(r[0], r[1], bool(r[2]) or r[1] is None) for r in rows]


def _oauth_tenant(runtime: Runtime, setting: str) -> CuratorTenant:
    installs = {tenant_of(e, t, org): (e, t, org) for e, t, org in _installations(runtime)}
    if setting:
        if setting in installs:
            return CuratorTenant(setting)
        key = runtime.store.installation_key(setting)
        if key is not None:  # installed there (an org-wide install answers for its enterprise)
            return CuratorTenant(tenant_of(*key))
        orgs = [tenant for tenant, (_, _, org) in installs.items() if org]
        if setting.startswith("T") and len(orgs) == 1:  # a workspace of the one org-wide install
            return CuratorTenant(orgs[0])
        teams = [tenant for tenant, (e, _, org) in installs.items() if e == setting and not org]
        if len(teams) == 1:  # an org whose one workspace installed the app
            return CuratorTenant(teams[0])
        return CuratorTenant(None, f"CATALOG_ADMIN_TEAM={setting} names no installation of the app")
    if len(installs) == 1:
        return CuratorTenant(next(iter(installs)))
    if not installs:
        return CuratorTenant(None, "the app is not installed in any workspace yet")
    return CuratorTenant(
        None, f"{len(installs)} installations: set CATALOG_ADMIN_TEAM to the workspace (T…) or org (E…) id"
    )


def curator_tenant(runtime: Runtime, clients: Clients) -> CuratorTenant:
    """The tenant curators' cards go to (see the module docstring)."""
    setting = runtime.settings.catalog_admin_team.strip()
    if runtime.settings.oauth_enabled:
        return _oauth_tenant(runtime, setting)
    token = clients.token_for(setting)
    if token is None:
        return CuratorTenant(None, "no bot token (SLACK_BOT_TOKEN)")
    with _lock:
        known = _token_tenant.get(token)
    if known is None:
        client = clients.for_team(setting)
        try:
            who = client.auth_test() if client is not None else None
        except Exception as exc:  # the token's team unknown: the setting, as given
            log.debug("auth.test for the curators' cards failed: %s", exc)
            who = None
        if who is None or not (who.get("team_id") or who.get("enterprise_id")):
            return CuratorTenant(setting or None, "" if setting else "the bot token's workspace is unknown")
        known = tenant_of(who.get("enterprise_id"), who.get("team_id"), who.get("is_enterprise_install"))
        with _lock:
            _token_tenant[token] = known
    return CuratorTenant(known)


def warn_held(n: int, why: str) -> None:
    """One WARNING line that ``n`` review cards are held and ``why`` (once per reason and process)."""
    with _lock:
        if why in _warned:
            return
        _warned.add(why)
    log.warning("catalog sources: %d review card(s) held for the curators: %s", n, why)
