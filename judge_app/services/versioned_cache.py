"""A small process-wide cache of values computed from the store, keyed by what they were
computed from — the store's data version among it — so a change of the data is a new key and
a value is never served stale.

At most ``entries`` values are kept, the least recently used going first; every session of
the process shares them, and threads may read and fill them at once (two threads computing
the same missing key both compute it, and the later one's value stays: equal values)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

Value = TypeVar("Value")


class VersionedCache(Generic[Value]):
    """Least-recently-used values by key (module doc)."""

    def __init__(self, entries: int) -> None:
        self.entries = entries
        self._values: OrderedDict[Hashable, Value] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Hashable, compute: Callable[[], Value]) -> Value:
        """The value of ``key``: the kept one, else ``compute()`` (kept from then on)."""
        with self._lock:
            if key in self._values:
                self._values.move_to_end(key)
                return self._values[key]
        value = compute()
        with self._lock:
            self._values[key] = value
            self._values.move_to_end(key)
            while len(self._values) > self.entries:
                self._values.popitem(last=False)
        return value

    def clear(self) -> None:
        with self._lock:
            self._values.clear()
