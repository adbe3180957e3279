"""The versioned catalog: models, loading with precise errors, export and diffs between versions.

The loader (YAML, the checks) is imported on first use of :func:`load_catalog` or
:func:`check_catalog`: a cold ``vllm-path search`` reads its catalog kept with the search index
(:mod:`bot.domain.search.cache`) and never needs it (issue 43: ``search`` <= 2x ``import slack_bolt``)."""

from typing import TYPE_CHECKING, Any

from bot.domain.catalog.compiled import Catalog
from bot.domain.catalog.issues import CatalogError, CatalogIssue

if TYPE_CHECKING:  # pragma: no cover
    from bot.domain.catalog.loader import check_catalog, load_catalog

__all__ = ["Catalog", "CatalogError", "CatalogIssue", "check_catalog", "load_catalog"]


def __getattr__(name: str) -> Any:
    if name in ("check_catalog", "load_catalog"):
        from bot.domain.catalog import loader

        return getattr(loader, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
