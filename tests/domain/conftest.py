"""The repo's catalog and a search matcher over it, once per test module (the search tests' shared
fixtures; a module that needs another catalog defines its own ``catalog``)."""

from __future__ import annotations

import pytest

from bot.domain.catalog import Catalog, load_catalog
from bot.domain.search import Matcher
from tests.evaldata import REPO


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog(REPO / "catalog")


@pytest.fixture(scope="module")
def matcher(catalog: Catalog) -> Matcher:
    return Matcher(catalog)
