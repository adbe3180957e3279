"""Fixtures for reading plans: the repo's catalog with reading times on every post.

Until the catalog carries counted minutes for every post (issue 24's data part), the tests give
each post a length derived from its id (5–34 minutes, deterministic) so that budgets bite.
"""

from __future__ import annotations

import hashlib

import pytest

from bot.config import DEFAULT_CATALOG_DIR
from bot.domain.catalog import Catalog, load_catalog
from bot.domain.catalog.compiled import Catalog as CompiledCatalog


def with_minutes(catalog: Catalog) -> Catalog:
    """``catalog`` with every post that has no length given ``5 + (sha256(id) % 30)`` minutes,
    counted."""
    posts = [
        p
        if p.minutes
        else p.model_copy(
            update={"minutes": 5 + int(hashlib.sha256(p.id.encode()).hexdigest(), 16) % 30, "minutes_source": "counted"}
        )
        for p in catalog.posts
    ]
    return CompiledCatalog.build(
        manifest=catalog.manifest,
        posts=posts,
        tracks=list(catalog.tracks),
        orders=dict(catalog.orders),
        warnings=catalog.warnings,
        changelog_versions=catalog.changelog_versions,
    )


@pytest.fixture(scope="session")
def repo_catalog() -> Catalog:
    return load_catalog(DEFAULT_CATALOG_DIR)


@pytest.fixture(scope="session")
def timed_catalog(repo_catalog: Catalog) -> Catalog:
    return with_minutes(repo_catalog)
