"""A store without a configured token key makes one throwaway cipher on first use, once: threads
using it first at the same moment seal with the same key (else a token sealed by one could not be
opened by the other)."""

from __future__ import annotations

import threading
import time

from bot.store import Store, base


def test_threads_first_using_the_cipher_at_once_share_one(store_url: str, monkeypatch) -> None:
    made = base.ephemeral_cipher

    def slowly_made():  # widen the window two first uses could both see "no cipher yet"
        time.sleep(0.05)
        return made()

    monkeypatch.setattr(base, "ephemeral_cipher", slowly_made)
    with Store.from_url(store_url, migrate=False) as store:
        start, ciphers = threading.Barrier(8), []

        def first_use() -> None:
            start.wait()
            ciphers.append(store._cipher)

        threads = [threading.Thread(target=first_use) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(10)
        assert len(ciphers) == 8 and len({id(c) for c in ciphers}) == 1
