"""What a running process holds: settings, the store, and the current catalog with its search index.

A catalog reload (SIGHUP, ``vllm-path catalog reload``) swaps in a new version only when valid;
an invalid one is refused with its errors logged, and the last good version keeps serving.
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from slack_sdk import WebClient
from slack_sdk.oauth.token_rotation import TokenRotator

from bot.config import Settings
from bot.domain.catalog import Catalog, CatalogError
from bot.store.crypto import TokenCipher, local_key_cipher

if TYPE_CHECKING:  # the search index (numpy, bm25s) is imported only when it is built
    from bot.digest.render import DigestRenderer
    from bot.domain.search import Matcher, Vocabulary

log = logging.getLogger(__name__)


class Loaded:
    """A catalog version and its search index (``matcher`` None: built when first read), swapped
    together. ``vocabulary`` and ``directory``: the search vocabulary and the folder both were
    read from (the built index is kept there); ``read_with``: the
    :func:`~bot.domain.search.cache.vocabulary_key` of the files they were read from, so that an
    index built later matches this catalog even when the files changed since."""

    def __init__(
        self,
        catalog: Catalog,
        matcher: Matcher | None = None,
        vocabulary: Vocabulary | None = None,
        directory: Path | None = None,
        read_with: bytes | None = None,
    ) -> None:
        self.catalog = catalog
        self._matcher = matcher
        self._vocabulary = vocabulary
        self._directory = directory
        self._read_with = read_with
        self._lock = threading.Lock()

    @property
    def matcher(self) -> Matcher:
        """The search index over :attr:`catalog` (built on first use, numpy and bm25s with it)."""
        if self._matcher is None:
            with self._lock:
                if self._matcher is None:
                    from bot.domain.search import Matcher
                    from bot.domain.search.cache import matcher_for

                    if self._vocabulary is None:
                        self._matcher = Matcher(self.catalog)
                    else:
                        self._matcher = matcher_for(self.catalog, self._vocabulary, self._directory, self._read_with)
        return self._matcher


class CatalogHolder:
    """Holds the catalog currently served; reads are lock-free, :meth:`reload` swaps atomically.
    Each version is read through :func:`bot.domain.search.cache.kept_catalog` (unchanged files: no
    YAML read). ``index_now``: build each version's search index when loaded (False: when first
    needed, a deferral ``benchmarks/cli_cold.py`` needs: ``vllm-path ask speculative`` took 5.0-5.5x
    ``import slack_bolt`` with the index built at start, target <= 5x; and
    ``benchmarks/serve_memory.py``: numpy, bm25s and the index are most of the 30 MB ``serve``
    held for it, see docs/benchmarks.md)."""

    def __init__(self, directory: str | Path, *, index_now: bool = True):
        self.directory = Path(directory)
        self._lock = threading.Lock()
        self._index_now = index_now
        self._loaded = self._load()

    def _load(self) -> Loaded:
        """The catalog folder with its vocabulary; raises CatalogError or VocabularyError."""
        from bot.domain.search.cache import kept_catalog

        catalog, vocabulary, key = kept_catalog(self.directory)
        loaded = Loaded(catalog, vocabulary=vocabulary, directory=self.directory, read_with=key)
        if self._index_now:
            loaded.matcher  # noqa: B018  (built now)
        return loaded

    @property
    def loaded(self) -> Loaded:
        """The current catalog and matcher (take it once per request for a consistent view)."""
        return self._loaded

    @property
    def catalog(self) -> Catalog:
        """The current catalog."""
        return self._loaded.catalog

    def reload(self) -> tuple[bool, list[str]]:
        """Load the catalog folder again: ``(True, [])`` when swapped in, ``(False, errors)`` when
        refused (each error naming the file and key). Never raises for a broken catalog."""
        from bot.domain.search import VocabularyError

        with self._lock:
            try:
                fresh = self._load()
            except (CatalogError, VocabularyError) as exc:
                errors = [str(i) for i in exc.errors]
                for line in errors:
                    log.error("catalog reload refused: %s", line)
                log.error(
                    "catalog reload refused: %d error(s); still serving %s", len(errors), self._loaded.catalog.version
                )
                return False, errors
            old = self._loaded.catalog.version
            self._loaded = fresh
            log.info("catalog reloaded: %s -> %s", old, fresh.catalog.version)
            return True, []


def token_cipher(settings: Settings) -> TokenCipher | None:
    """The cipher for tokens at rest: ``TOKEN_ENCRYPTION_KEY``; else with OAuth a generated local
    key (:func:`bot.store.crypto.local_key_cipher`); else None (no tokens stored)."""
    if settings.token_encryption_key is not None:
        return TokenCipher.from_setting(settings.token_encryption_key.get_secret_value())
    if settings.oauth_enabled:
        return local_key_cipher()
    return None


def token_rotator(settings: Settings) -> TokenRotator | None:
    """slack-sdk's ``TokenRotator`` for bot tokens outside a request (OAuth only), on ``SLACK_API_URL``."""
    if not (settings.oauth_enabled and settings.slack_client_id and settings.slack_client_secret):
        return None
    return TokenRotator(
        client_id=settings.slack_client_id,
        client_secret=settings.slack_client_secret.get_secret_value(),
        client=WebClient(base_url=settings.slack_api_url or WebClient.BASE_URL),
    )


class Runtime:
    """Settings, store (a :class:`bot.store.Store` or one with its interface) and catalog holder;
    ``renderer``: the digest's (None: :data:`bot.slack.views.digest_render.RENDERER`)."""

    def __init__(self, settings: Settings, store: Any, holder: CatalogHolder, renderer: DigestRenderer | None = None):
        self.settings = settings
        self.store = store
        self.holder = holder
        self._renderer = renderer

    @property
    def renderer(self) -> DigestRenderer:
        """What the digest renders with (see the class docstring)."""
        if self._renderer is None:
            from bot.slack.views.digest_render import RENDERER  # Block Kit: on first use

            self._renderer = RENDERER
        return self._renderer

    @classmethod
    def create(cls, settings: Settings | None = None, *, migrate: bool = True, index_now: bool = True) -> Runtime:
        """Load the catalog (CatalogError if invalid) and open the database (migrated first if ``migrate``)."""
        from bot.store import Store

        settings = settings or Settings()
        holder = CatalogHolder(settings.catalog_dir, index_now=index_now)
        store = Store.from_url(
            settings.database_url,
            migrate=migrate,
            client_id=settings.slack_client_id,
            default_timezone=settings.default_timezone,
            token_cipher=token_cipher(settings),
            token_rotator=token_rotator(settings),
        )
        if migrate:
            store.seal_tokens()  # an upgrade leaves no token readable in plain text
        runtime = cls(settings, store, holder)
        runtime.record_catalog_version()
        return runtime

    def record_catalog_version(self) -> None:
        """Record the served version's paths (track id -> post ids) for later digests. Idempotent."""
        from bot.domain.plan import version_snapshot

        cat = self.holder.catalog
        # each track's path and, since QA round 8, the posts without a link in it (a digest passes
        # them over and sends them once a later version links them; bot/domain/plan.py)
        self.store.record_catalog_version(cat.version, version_snapshot(cat))

    def reload_catalog(self) -> tuple[bool, list[str]]:
        """Reload the catalog (see :meth:`CatalogHolder.reload`) and record a new version."""
        ok, errors = self.holder.reload()
        if ok:
            self.record_catalog_version()
        return ok, errors
