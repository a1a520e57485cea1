"""Things shown on the page and waiting for the owner's confirmation (a calibration, a die's crop, a
template's outline), each under a random token: kept at most ``kept`` at a time and for ``kept_s``
seconds, the oldest dropped first.  Thread-safe (the server and the appliance's loop share them)."""

from __future__ import annotations

import secrets
import threading
import time
from typing import Generic, Protocol, TypeVar


class Stamped(Protocol):
    #: When it was put aside (``time.monotonic``).
    at: float


T = TypeVar("T", bound=Stamped)


class Waiting(Generic[T]):
    def __init__(self, kept: int, kept_s: float) -> None:
        self.kept, self.kept_s = kept, kept_s
        self._lock = threading.Lock()
        self._items: dict[str, T] = {}
        #: What each recent confirmation said, by its token (None: being confirmed now): the same form sent
        #: twice (a double tap) is answered with the first one's result, not "gone".
        self._done: dict[str, str | None] = {}

    def put(self, item: T) -> str:
        """Keep ``item``; the token that fetches it."""
        token = secrets.token_urlsafe(12)
        with self._lock:
            now = time.monotonic()
            self._items = {k: v for k, v in self._items.items() if now - v.at < self.kept_s}
            self._items[token] = item
            while len(self._items) > self.kept:
                self._items.pop(next(iter(self._items)))
        return token

    def get(self, token: str) -> T | None:
        with self._lock:
            return self._items.get(token)

    def take(self, token: str) -> T | None:
        """The item, no longer kept (a confirmation uses it once)."""
        with self._lock:
            item = self._items.pop(token, None)
            if item is not None:
                self._done[token] = None
                while len(self._done) > 64:
                    self._done.pop(next(iter(self._done)))
            return item

    def finish(self, token: str, message: str | None) -> None:
        """The confirmation of ``token`` said ``message`` (None: it failed, and a second try is told "gone")."""
        with self._lock:
            if message is None:
                self._done.pop(token, None)
            elif token in self._done:
                self._done[token] = message

    def done(self, token: str) -> tuple[bool, str | None]:
        """``(True, message)`` for a token confirmed already, ``(True, None)`` while it is being confirmed,
        ``(False, None)`` for a token never taken (or long ago)."""
        with self._lock:
            return token in self._done, self._done.get(token)
