"""The process-wide cache behind the decision line and the Backfill page's order."""

from __future__ import annotations

import threading

from judge_app.services.versioned_cache import VersionedCache


def test_a_kept_value_is_not_computed_again_and_the_least_recently_used_goes_first() -> None:
    cache: VersionedCache[str] = VersionedCache(2)
    calls: list[str] = []

    def compute(key: str):
        return lambda: calls.append(key) or key.upper()

    assert cache.get("a", compute("a")) == "A"
    assert cache.get("b", compute("b")) == "B"
    assert cache.get("a", compute("a")) == "A"      # kept: not computed again
    assert cache.get("c", compute("c")) == "C"      # "b", least recently used, goes
    assert cache.get("a", compute("a")) == "A"
    assert cache.get("b", compute("b")) == "B"      # computed again
    assert calls == ["a", "b", "c", "b"]


def test_threads_filling_it_at_once_keep_it_within_its_size() -> None:
    cache: VersionedCache[int] = VersionedCache(8)
    threads = [threading.Thread(target=lambda n=n: [cache.get(i % 20, lambda i=i: i % 20)
                                                    for i in range(n, n + 200)])
               for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(cache._values) <= 8
    assert all(cache.get(key, lambda: -1) == key for key in list(cache._values))
