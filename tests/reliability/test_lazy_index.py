"""The runtime's search index built on first use (``Runtime.create(index_now=False)``, the
console and ``vllm-path ask``): not built until a search needs it, then once, for every thread."""

from __future__ import annotations

import threading

from bot.domain.search import Matcher
from bot.runtime import CatalogHolder, Loaded
from tests.evaldata import REPO


def test_a_lazy_holder_builds_its_index_once_on_first_use():
    holder = CatalogHolder(REPO / "catalog", index_now=False)
    loaded = holder.loaded
    assert loaded._matcher is None  # nothing built at load
    seen: list[Matcher] = []
    start = threading.Barrier(8)

    def use() -> None:
        start.wait()
        seen.append(loaded.matcher)

    threads = [threading.Thread(target=use) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(seen) == 8 and all(m is seen[0] for m in seen)
    assert seen[0].search("nixl").results  # a working index, on the holder's vocabulary


def test_an_eager_holder_and_a_given_matcher_are_ready_at_once():
    holder = CatalogHolder(REPO / "catalog")
    assert holder.loaded._matcher is not None
    matcher = Matcher(holder.catalog)
    assert Loaded(holder.catalog, matcher).matcher is matcher
