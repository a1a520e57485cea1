"""Who may use the page: a pairing code shown on a screen at the table, then a session cookie; CSRF tokens; an
owner's phone and guests' phones.

Why a code on a screen and not a password: the table's screens are the one thing only people at the table
can read, so seeing the code proves presence, and there is nothing to set up or forget.  The code is six
digits, new at every start of the appliance; wrong codes are rate-limited per address and overall, so
guessing it from the network takes weeks.  A paired browser gets a random session id in a cookie
(``HttpOnly``: scripts cannot read it; ``SameSite=Strict``: other sites' pages cannot send it) and a CSRF
token that every POST must carry (a form field or the ``X-CSRF-Token`` header).  Sessions live in memory:
a restart asks for the new code.

Everyone at the table sees the code, so a code cannot tell the owner from a guest.  The first phone paired (after
a start, or once no owner's phone is paired) is the owner's: it starts games, calibrates, teaches dice and edits
the rule facts; every later phone is a guest's, which watches, presses and types rolls as the panel's buttons do
(every phone paired had the owner's page: a guest's could start another game, save a calibration, teach the
dice).  An owner's phone makes another an owner's, or a guest's, on the Phones page, and forgets a phone (the
code is renewed); the owner's browser pairing again, its session cookie lost, is the owner's again.

Pure apart from the injected clock and ``secrets``.
"""

from __future__ import annotations

import hmac
import secrets
import time
import unicodedata
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

SESSION_COOKIE = "pitboard_session"
#: Cookie of the pairing form: a token the form must echo (CSRF before there is a session).
PAIR_COOKIE = "pitboard_pair"
#: Wrong codes allowed per address in :data:`WINDOW_S`, and from all addresses together.
PER_CLIENT_FAILS = 5
GLOBAL_FAILS = 20
WINDOW_S = 60.0
#: Sessions kept at most (the oldest is forgotten first).
MAX_SESSIONS = 64


def new_code() -> str:
    return f"{secrets.randbelow(10**6):06d}"


@dataclass
class Session:
    id: str
    csrf: str
    client: str
    since: float
    #: what the phone says it is ("iPhone", "Android"), from its User-Agent: for the owner's list of phones
    device: str = ""
    #: a public name for the session in the Phones page's forms (the id is the cookie's secret: never in a page)
    handle: str = field(default_factory=lambda: secrets.token_urlsafe(9))
    #: an owner's phone: besides watching, pressing and typing rolls, it starts games, calibrates, teaches and
    #: edits the rule facts (:data:`OWNER_ONLY`); the first phone paired while no owner's is, and any an owner's
    #: phone makes one
    owner: bool = False
    #: what the Phones page says once after a form sent from it, by the token its redirect carries (``?said=``): the
    #: page of that tab alone says it (one slot for the phone: another tab's Phones page took the message)
    flashes: dict[str, tuple[str, bool]] = field(default_factory=dict)
    #: the browser's mark (a cookie kept across pairings): the owner's browser pairing again, its session cookie
    #: lost, is the owner's again (a review: it paired as a guest's, and no phone could start a game)
    browser: str = ""

    @property
    def who(self) -> str:
        """The phone as the Phones page names it: "Android at 192.168.1.23"."""
        return f"{self.device or 'a browser'} at {self.client}"


#: The User-Agent's words that name a kind of device, first match wins (the list on the Phones page).
DEVICES = (("iPhone", "iPhone"), ("iPad", "iPad"), ("Android", "Android"), ("CrOS", "Chromebook"),
           ("Macintosh", "Mac"), ("Windows", "Windows"), ("Linux", "Linux"))


def sole_owner(session: Session, sessions: Iterable[Session]) -> bool:
    """Whether ``session`` is the one owner's phone among ``sessions``: it stays an owner's (made a guest's, no phone
    could start a game or calibrate until a restart), and forgets itself only when no other phone is paired."""
    return session.owner and sum(s.owner for s in sessions) == 1


def device_of(user_agent: str) -> str:
    """"iPhone", "Android" … from a browser's User-Agent; "a browser" when it names none of them."""
    return next((name for word, name in DEVICES if word in user_agent), "a browser")


@dataclass
class Pairing:
    """The code, the rate limit, the sessions."""

    code: str = field(default_factory=new_code)
    clock: Callable[[], float] = time.monotonic
    #: Called with each new session (the web service takes the code off player 1's screen).
    on_paired: Callable[[Session], None] | None = None
    #: Called with each phone forgotten, after the code was renewed when it was (the web service takes the code
    #: off the screen it stood on: the next pairing page shows the code then in force).
    on_forgotten: Callable[[Session], None] | None = None
    sessions: dict[str, Session] = field(default_factory=dict)
    _fails: dict[str, deque[float]] = field(default_factory=dict)
    _all_fails: deque[float] = field(default_factory=deque)

    def _prune(self, q: deque[float], now: float) -> None:
        while q and now - q[0] > WINDOW_S:
            q.popleft()

    def retry_after(self, client: str) -> float:
        """Seconds until ``client`` may try a code again (0: now)."""
        now = self.clock()
        mine = self._fails.get(client, deque())
        self._prune(mine, now)
        self._prune(self._all_fails, now)
        waits = []
        if len(mine) >= PER_CLIENT_FAILS:
            waits.append(WINDOW_S - (now - mine[0]))
        if len(self._all_fails) >= GLOBAL_FAILS:
            waits.append(WINDOW_S - (now - self._all_fails[0]))
        return max([0.0, *waits])

    def pair(self, client: str, code: str, device: str = "", browser: str = "") -> tuple[Session | None, str]:
        """A new session for a right code, else None and what to do."""
        wait = self.retry_after(client)
        if wait > 0:
            return None, f"too many wrong codes: wait {int(wait) + 1} s, then type the code on player 1's screen"
        # a phone set to another script types its own digits (١٦١٠١٩, full-width １６１…): the same code (a web audit)
        typed = "".join(str(unicodedata.digit(ch)) if ch.isdigit() and unicodedata.digit(ch, None) is not None
                        else ch for ch in str(code) if not ch.isspace())
        if not hmac.compare_digest(typed.encode(), self.code.encode()):
            now = self.clock()
            self._fails.setdefault(client, deque()).append(now)
            self._all_fails.append(now)
            if len(self._fails) > 1024:  # never grow without bound
                self._fails.pop(next(iter(self._fails)))
            if typed.isdigit() and len(typed) == 6:
                why = "not the code"
            elif not typed:
                why = "nothing typed"
            elif typed.isdigit():  # "12345 is six digits" said the opposite of what it meant
                why = f"{len(typed)} digits, not six" if len(typed) <= 12 else "far more than six digits"
            else:
                why = "not six digits"
            shown = typed if len(typed) <= 12 else typed[:12] + "…"
            return None, f"{shown + ': ' if shown else ''}{why}; type the six digits shown on player 1's screen"
        # the first phone, or the first since no owner's is paired; or the owner's own browser pairing again
        before = [s for s in self.sessions.values() if s.owner and browser and s.browser == browser]
        owner = bool(before) or not any(s.owner for s in self.sessions.values())
        for old in before:  # (its old session: the cookie its browser lost)
            self.sessions.pop(old.id, None)
        session = Session(secrets.token_urlsafe(32), secrets.token_urlsafe(32), client, self.clock(), device,
                          owner=owner, browser=browser)
        self.sessions[session.id] = session
        while len(self.sessions) > MAX_SESSIONS:  # the oldest guest's forgotten first: never an owner's, nor this one
            others = [sid for sid in self.sessions if sid != session.id]
            self.sessions.pop(next((sid for sid in others if not self.sessions[sid].owner), others[0]))
        if self.on_paired is not None:
            self.on_paired(session)
        return session, "paired"

    def forget(self, handle: str, *, renew: bool = True) -> Session | None:
        """Forget the paired phone of ``handle`` (its next request asks for the code again); the session forgotten,
        or None when there is none such (forgotten already, or before a restart).  ``renew``: a new code, the phone
        forgotten knowing the old one (it would pair again with it at once: a review); a phone forgetting itself
        needs none."""
        target = self.by_handle(handle)
        if target is None:
            return None
        if renew:
            self.code = new_code()
        if self.on_forgotten is not None:
            self.on_forgotten(target)
        return self.sessions.pop(target.id)

    def by_handle(self, handle: str) -> Session | None:
        return next((s for s in self.sessions.values()
                     if hmac.compare_digest(s.handle.encode(), str(handle).encode())), None)

    def set_owner(self, handle: str, owner: bool) -> tuple[Session | None, str]:
        """Make the phone of ``handle`` an owner's (``owner``) or a guest's: (the session, "") or (None, why not):
        gone, or the last owner's phone made a guest's (then no phone could start a game or calibrate until a
        restart)."""
        target = self.by_handle(handle)
        if target is None:
            return None, "that phone was forgotten already"
        if not owner and sole_owner(target, self.sessions.values()):
            return None, "it is the only owner's phone: make another phone an owner's first"
        target.owner = owner
        return target, ""

    def session(self, cookie: str | None) -> Session | None:
        if not cookie:
            return None
        return self.sessions.get(cookie)

    @staticmethod
    def csrf_ok(session: Session, token: str | None) -> bool:
        return bool(token) and hmac.compare_digest(str(token).encode(), session.csrf.encode())
