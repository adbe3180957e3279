"""Values attached to one loaded catalog object (not hashable): built on first use, keyed by its
id and checked with a weak reference, dropped when the catalog is collected."""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable, Hashable
from typing import Any, Generic, TypeVar

from bot.domain.catalog.compiled import Catalog

_T = TypeVar("_T")


class PerCatalog(Generic[_T]):
    """A thread-safe registry of values keyed by (catalog object, ``key``)."""

    def __init__(self) -> None:
        self._values: dict[tuple[int, Hashable], tuple[weakref.ref[Catalog], _T]] = {}
        self._lock = threading.Lock()

    def get(self, catalog: Catalog, key: Hashable, make: Callable[[], _T]) -> _T:
        """The value for ``catalog`` and ``key``, made with ``make()`` once, on first use."""
        slot = (id(catalog), key)
        hit = self._values.get(slot)
        if hit is not None and hit[0]() is catalog:
            return hit[1]
        with self._lock:
            hit = self._values.get(slot)
            if hit is not None and hit[0]() is catalog:
                return hit[1]
            value = make()

            def _drop(
                _ref: weakref.ref[Catalog], slot: tuple[int, Hashable] = slot, values: dict[Any, Any] = self._values
            ) -> None:
                values.pop(slot, None)  # bound now: at interpreter exit the attribute may be gone

            self._values[slot] = (weakref.ref(catalog, _drop), value)
            return value

    def clear(self) -> None:
        """Forget every value (the next :meth:`get` makes it again)."""
        with self._lock:
            self._values.clear()
