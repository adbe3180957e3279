"""The versioned catalog: models, loading with precise errors, export and diffs between versions."""

from bot.catalog.compiled import Catalog
from bot.catalog.loader import CatalogError, CatalogIssue, check_catalog, load_catalog

__all__ = ["Catalog", "CatalogError", "CatalogIssue", "check_catalog", "load_catalog"]
