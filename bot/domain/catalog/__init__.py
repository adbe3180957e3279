"""The versioned catalog: models, loading with precise errors, export and diffs between versions."""

from bot.domain.catalog.compiled import Catalog
from bot.domain.catalog.loader import CatalogError, CatalogIssue, check_catalog, load_catalog

__all__ = ["Catalog", "CatalogError", "CatalogIssue", "check_catalog", "load_catalog"]
