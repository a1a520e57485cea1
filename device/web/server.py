"""The web page's server: Starlette routes on uvicorn, in a thread beside the loop.

Why Starlette on uvicorn: both are small, pure Python (h11 for HTTP/1.1: nothing to compile on a Pi),
maintained, and asyncio, so one thread serves any number of phones and their event streams without a
thread each.  Pages are rendered on the server (:mod:`device.web.pages`); the live page's one small script
listens to Server-Sent Events.

The server never touches the game: it reads snapshots the loop published (:class:`device.web.hub.WebHub`),
reads the game log through its own read-only connection, and sends presses back through the hub.
"""

from __future__ import annotations

import asyncio
import json
import math
import secrets
import socket
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import ClientDisconnect, Request
from starlette.responses import HTMLResponse, PlainTextResponse, RedirectResponse, Response, StreamingResponse
from starlette.routing import Route

from device.web import pages
from device.web.camera_view import CameraView
from device.web.hub import WebHub
from device.web.security import PAIR_COOKIE, SESSION_COOKIE, Pairing, Session, device_of, sole_owner

#: Heartbeat of an idle event stream (keeps proxies and phones from closing it).
HEARTBEAT_S = 15.0
#: Largest form body accepted (a setup file is a few KB).
MAX_BODY = 64 * 1024
#: A phone that tapped dice for the roll awaited holds it this long after its last tap: another phone's taps
#: and Send are refused meanwhile (a phone put down mid-roll does not hold the roll for good).
TYPING_HELD_S = 60.0
#: A browser's own mark, kept across pairings (a session's cookie goes when the phone's browser drops it): a
#: phone paired again is still the phone whose taps hold the roll, and may take them back.
BROWSER_COOKIE = "pitboard_browser"
BROWSER_KEPT_S = 400 * 24 * 3600
PUBLIC = ("/pair", "/static/style.css")

NewGame = Callable[[str, Mapping[str, Any]], str]


@dataclass
class WebContext:
    """What the pages need from their host (the sim or the appliance)."""

    hub: WebHub
    game: str
    store_path: Path | None
    chart_path: Path
    pairing: Pairing = field(default_factory=Pairing)
    #: Start a new game on the loop's thread: ``(game, options) -> message``, ValueError saying why it will
    #: not (another game than the host plays); None: this host cannot.
    new_game: NewGame | None = None
    #: The games ``new_game`` begins (None: any): the simulator plays its own alone, and its page offered Start for
    #: every game, refused only after a Check had said "a valid table" (a phone review)
    startable: tuple[str, ...] | None = None
    #: The ``check`` lines (device.cli_device.CheckLine) for the check page.
    check: Callable[[], Sequence[Any]] | None = None
    game_id: Callable[[], int | None] = lambda: None
    #: The game being played, when Start this game would leave it unfinished ("A Gaslands: Refuelled game
    #: (game 3), 12 moves in,"); None when there is none, it is over, or nothing has been played yet.
    in_progress: Callable[[], str | None] = lambda: None
    #: Somebody opened the pairing page: show the code on player 1's screen (queued for the loop).
    on_pair_page: Callable[[], None] | None = None
    #: Whose screen shows the pairing code (the first player at the table with a working screen, or a screen not
    #: at the table when no one at it has one), or None before it was first shown.
    code_screen: Callable[[], str | None] = lambda: None
    camera: CameraView = field(default_factory=CameraView)
    #: The owner's face library (None: the data folder's faces.json), and who is told of a new one.
    faces_path: Path | None = None
    #: The config file the appliance runs with, absolute, when it is not the default (None: the default,
    #: /etc/pitboard/pitboard.toml, or none; ``PitboardConfig.config_option``): the undo the Teach page offers
    #: names it, so `teach dice --undo` takes back from the same library.
    config_source: str | None = None
    on_library: Callable[[Any], None] | None = None
    crops: Any = None
    #: The table's calibration file (None: the data folder's), and who is told of a new calibration or of
    #: a newly taught template outline (the loop's reader, on the loop's thread).
    calibration_path: Path | None = None
    on_calibration: Callable[[Any], None] | None = None
    on_outlines: Callable[[], None] | None = None
    proposals: Any = None
    #: when a calibration was last saved from a phone (time.monotonic): an older preview is not saved over it
    calibration_saved_at: float = float("-inf")
    outlines: Any = None
    #: A roll typed on the page: ``(the offer it answers, faces by place)``, queued for the loop (None: not taken).
    on_dice: Callable[[Any, list[int], bool], None] | None = None  # (offer, places, draft)
    #: What the phone asks before a BACK that undoes (:func:`device.web.undo_questions`: "back", "long", "key"),
    #: set on the loop's thread with each snapshot; None: the page asks nothing.
    undo: dict[str, str | None] | None = None
    #: What a press acts on now (:meth:`device.app.App.press_key`), set on the loop's thread with each redraw; a
    #: phone's OK, BACK or NEXT carries the one its page showed.
    press_key: str | None = None


def _holds_setup_of(shown: str, game: str, text: str) -> bool:
    """Whether ``text``, refused for ``game``, is a setup of ``shown`` (the game the page was drawn for): an
    audit found "the box still holds the Space Race setup; ... press Example, which replaces what is in the box"
    said of a Thunder Road setup typed there, whose typing Example would have wiped."""
    import tomllib

    from device.setup_files import another_games_setup

    try:
        options = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, ValueError):
        return False
    other = another_games_setup(game, options)
    return other is not None and other[0] == shown


def client_of(request: Request) -> str:
    return request.client.host if request.client is not None else "?"


def _session(ctx: WebContext, request: Request) -> Session | None:
    return ctx.pairing.session(request.cookies.get(SESSION_COOKIE))


class BadForm(ValueError):
    """A request body that is no form of these pages (an upload, JSON): ``status`` is its HTTP status."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


async def _form(request: Request) -> dict[str, str]:
    """The posted form; BadForm saying what is wrong with a body that is not one.  A body larger than
    MAX_BODY is refused before it is read whole (a phone's 40 MB photo is not held in the Pi's memory)."""
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind not in ("", "application/x-www-form-urlencoded"):
        if kind.startswith("multipart/"):
            raise BadForm("the page takes no file uploads: teaching and calibrating use the camera's live frame "
                          "(to calibrate from a photo, run `pitboard calibrate IMAGE` on the Pitboard); open the "
                          "page and use its form", 415)
        raise BadForm(f"the page takes only its own forms, not a body of type {kind[:60]}: open the page and use "
                      "its form", 415)
    too_big = BadForm(f"the form is larger than {MAX_BODY // 1024} KB: send less (a setup file is a few KB)", 413)
    length = request.headers.get("content-length", "")
    if length.isdigit() and int(length) > MAX_BODY:
        raise too_big
    chunks, size = [], 0
    try:
        async for chunk in request.stream():
            size += len(chunk)
            if size > MAX_BODY:
                raise too_big
            chunks.append(chunk)
    except ClientDisconnect:  # a phone that lost the Wi-Fi mid-form: 40 lines of traceback in the journal (an audit)
        raise BadForm("the form was cut short: the connection closed before all of it came; send it again", 400) \
            from None
    body = b"".join(chunks)
    from urllib.parse import parse_qsl

    return dict(parse_qsl(body.decode("utf-8", "replace"), keep_blank_values=True))


def _same_origin(request: Request) -> bool:
    """A POST whose Origin (when the browser sends one) is this page's own."""
    origin = request.headers.get("origin")
    if not origin or origin == "null":
        return origin is None
    host = request.headers.get("host", "")
    return origin.split("://", 1)[-1] == host


SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
                               "frame-ancestors 'none'; form-action 'self'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
}


def create_app(ctx: WebContext) -> Starlette:
    hub = ctx.hub

    def html(text: str, status: int = 200) -> HTMLResponse:
        return HTMLResponse(text, status_code=status, headers=SECURITY_HEADERS)

    def guard(handler: Callable[..., Any], owner: bool = False) -> Callable[[Request], Any]:
        """The handler for paired browsers only; every POST must carry the session's CSRF token.  ``owner``: for
        an owner's phone only (a new game, calibrating, teaching, the rule facts saved); a guest's is told why."""
        async def wrapped(request: Request) -> Response:
            session = _session(ctx, request)
            if session is None:
                if request.method == "GET" and "text/html" in request.headers.get("accept", "text/html"):
                    return RedirectResponse("/pair", status_code=303)
                return PlainTextResponse("not paired: open the page and type the code shown on a screen at the "
                                         "table", status_code=401)
            form: dict[str, str] = {}
            if request.method == "POST":
                try:
                    form = await _form(request)
                except BadForm as exc:
                    return PlainTextResponse(str(exc), status_code=exc.status)
                token = request.headers.get("x-csrf-token") or form.get("csrf")
                if not _same_origin(request) or not Pairing.csrf_ok(session, token):
                    return PlainTextResponse("the form's CSRF token is missing or wrong: reload the page and send "
                                             "it again", status_code=403)
                if ctx.pairing.sessions.get(session.id) is not session:  # forgotten while its form was read
                    return PlainTextResponse("this phone was forgotten: open the page and type the code shown on a "
                                             "screen at the table", status_code=401)
            with pages.drawn_for(owner=session.owner):  # the nav and forms for this phone (a guest's: no owner's)
                if owner and not session.owner:
                    if "text/html" in request.headers.get("accept", "text/html"):
                        return html(pages.owner_only_page(), 403)
                    return PlainTextResponse(pages.OWNER_ONLY, status_code=403)
                response: Response = await handler(request, session, form)
                return response

        return wrapped

    # -- pairing --------------------------------------------------------------------------------
    def _first_player() -> str | None:
        """Player 1's name, from the snapshot the loop published (screens in seating order)."""
        screens = hub.snapshot.screens
        return screens[0][0] if screens else None

    async def pair_get(request: Request) -> Response:
        token = request.cookies.get(PAIR_COOKIE) or secrets.token_urlsafe(24)
        if ctx.on_pair_page is not None:
            ctx.on_pair_page()
        resp = html(pages.pair_page(token, first=_first_player(), screen=ctx.code_screen()))
        resp.set_cookie(PAIR_COOKIE, token, httponly=True, samesite="strict", max_age=3600)
        return resp

    async def pair_post(request: Request) -> Response:
        try:
            form = await _form(request)
        except BadForm as exc:
            return PlainTextResponse(str(exc), status_code=exc.status)
        cookie = request.cookies.get(PAIR_COOKIE)
        token = form.get("csrf", "")
        if not cookie or not secrets.compare_digest(cookie.encode(), token.encode()) or not _same_origin(request):
            return PlainTextResponse("the pairing form's CSRF token is missing or wrong: open /pair again",
                                     status_code=403)
        browser = (request.cookies.get(BROWSER_COOKIE) or secrets.token_urlsafe(16))[:64]
        session, message = ctx.pairing.pair(client_of(request), form.get("code", ""),
                                            device_of(request.headers.get("user-agent", "")), browser=browser)
        if session is None:
            status = 429 if message.startswith("too many") else 403
            if ctx.on_pair_page is not None:  # the code on its screen again (shown 2 minutes, or renewed since)
                ctx.on_pair_page()
            first, screen = _first_player(), ctx.code_screen()
            # the screen the code is on by its player's name: player 1's, or another's when theirs is off (the
            # page said so above the form, and the refusal under it named player 1's screen, which showed nothing)
            if screen or first:
                message = message.replace("player 1's screen", f"{screen or first}'s screen")
            return html(pages.pair_page(cookie, message, first=first, screen=screen), status)
        resp = RedirectResponse("/", status_code=303)
        resp.set_cookie(SESSION_COOKIE, session.id, httponly=True, samesite="strict", path="/")
        resp.set_cookie(BROWSER_COOKIE, browser, httponly=True, samesite="strict", path="/", max_age=BROWSER_KEPT_S)
        resp.delete_cookie(PAIR_COOKIE)
        return resp

    # -- live -----------------------------------------------------------------------------------
    async def live(request: Request, session: Session, form: dict[str, str]) -> Response:
        shot = hub.camera
        return html(pages.live_page(hub.snapshot, session.csrf, camera=shot.index if shot else None, game=ctx.game,
                                    undo=ctx.undo, press_key=ctx.press_key))

    def _payload() -> str:
        data = hub.snapshot.to_json()
        data["camera"] = hub.camera.index if hub.camera is not None else None
        data["undo"] = ctx.undo
        data["press"] = ctx.press_key
        return json.dumps(data)

    async def events(request: Request, session: Session, form: dict[str, str]) -> Response:
        async def stream() -> Any:
            waiter = hub.subscribe()
            try:
                sent = -1
                while True:
                    if ctx.pairing.sessions.get(session.id) is not session:
                        return  # the phone was forgotten: its open page gets nothing more (a review)
                    snap = hub.snapshot
                    if snap.version != sent:
                        sent = snap.version
                        yield f"event: snapshot\nid: {snap.version}\ndata: {_payload()}\n\n"
                    try:
                        await asyncio.wait_for(waiter.event.wait(), HEARTBEAT_S)
                    except TimeoutError:
                        yield ": keep-alive\n\n"
                    waiter.event.clear()
                    if hub.closing or await request.is_disconnected():
                        return
            finally:
                hub.unsubscribe(waiter)

        headers = {**SECURITY_HEADERS, "X-Accel-Buffering": "no"}
        return StreamingResponse(stream(), media_type="text/event-stream", headers=headers)

    async def press(request: Request, session: Session, form: dict[str, str]) -> Response:
        button = form.get("button", "")
        long = form.get("long") in ("1", "true", "yes")
        if button.endswith(":long"):
            button, long = button[: -len(":long")], True
        asked, undo = form.get("undoes"), ctx.undo
        if button == "back" and asked is not None and undo is not None and undo["key"] is not None:
            # the phone asked "Undo …?" about the game as its page showed it: a BACK answering that question
            # must not undo something else (the table moved on while the question was open)
            now_key = str(undo["key"])
            if (asked.rsplit(":", 1)[0] != now_key.rsplit(":", 1)[0]) if long else asked != now_key:
                question = undo["long" if long else "back"]
                now = (f"it would now ask: {question}" if question else
                       "it would now undo nothing" if long else "it would now only close a list")
                # (the page says "BACK was not pressed: " before it: it was said twice)
                return PlainTextResponse(f"the game changed while you were asked ({now}); press it again",
                                         status_code=409)
        seen = form.get("seen") or None
        # a seat's button (p1-p6) is its player's OK: it decides as OK does, and is held to the screen seen too
        if button not in ("ok", "back", "next") and not (button[:1] == "p" and button[1:].isdigit()):
            seen = None  # (SELECT only moves the cursor: two of them move it twice, as two presses would)
        elif seen is not None and ctx.press_key is not None and seen != ctx.press_key:
            # a double tap's second, or a press another phone's got ahead of: it would act on a screen not seen
            return PlainTextResponse("the screen changed before this press arrived; look, then press again",
                                     status_code=409)
        # the page asked "Undo …?" only when it had a question for this BACK (its key came with the press, checked
        # above against the question now): the App asks the rest on the screen (a review: it took any phone press)
        questioned = (button == "back" and asked is not None and undo is not None
                      and undo["long" if long else "back"] is not None)
        try:
            hub.press(button, long, seen=seen, asked=questioned)
        except ValueError as exc:
            return PlainTextResponse(f"{exc}", status_code=400)
        if request.headers.get("x-csrf-token"):
            return Response(status_code=204)
        return RedirectResponse("/", status_code=303)

    # The phone typing the roll awaited: (the roll, its session, how many dice tapped, when).  Two phones typed
    # one roll: the roller's screen showed one phone's taps, Send entered the other's, and neither was told.
    typing: list[Any] = [None]

    async def dice(request: Request, session: Session, form: dict[str, str]) -> Response:
        """A whole roll typed on the page (faces by place: "3 5 1"), for the roll the page showed."""
        offer = hub.snapshot.dice
        if offer is None:
            return PlainTextResponse("no dice are awaited now", status_code=409)
        sent = (form.get("die", offer.die), form.get("label", offer.label), form.get("player", offer.player or ""))
        if sent != (offer.die, offer.label, offer.player or ""):
            return PlainTextResponse(f"the roll awaited has changed: {offer.title()} now; enter it again",
                                     status_code=409)
        draft = form.get("draft") == "1"  # the dice tapped so far, for the roller's screen; Send enters them
        try:
            places = offer.places(form.get("faces", ""), draft=draft)
        except ValueError as exc:
            return PlainTextResponse(str(exc), status_code=400)
        if ctx.on_dice is None:
            return PlainTextResponse("this Pitboard takes no rolls from the page: use the buttons", status_code=404)
        unusual = None if draft or form.get("on_purpose") == "1" else offer.unusual_asked(len(places))
        if unusual is not None:  # the page's script asks first and says on_purpose=1; a page without it ticks the box
            return PlainTextResponse(f"{unusual}: tap the missing dice or take back the extra ones, or send these on "
                                     "purpose ('Another count on purpose')", status_code=409)
        now = time.monotonic()
        held = typing[0]
        # this browser's own taps, from before it was paired again, are its own to take back or send
        browser = request.cookies.get(BROWSER_COOKIE)
        if (held is not None and held[0] == offer and held[1] != session.id and not (browser and held[4] == browser)
                and held[2] > 0 and now - held[3] < TYPING_HELD_S):
            left = max(1, math.ceil(TYPING_HELD_S - (now - held[3])))
            return PlainTextResponse(f"another phone is entering this roll ({held[2]} "
                                     f"{'die' if held[2] == 1 else 'dice'} tapped there): Send it there, or Take "
                                     f"back its dice there. If nobody does, its hold ends by itself in {left} s "
                                     f"(a minute after its last tap); then enter it here", status_code=409)
        typing[0] = (offer, session.id, len(places), now, browser) if draft and places else None
        ctx.on_dice(offer, places, draft)
        if request.headers.get("x-csrf-token"):
            return Response(status_code=204)
        return RedirectResponse("/", status_code=303)

    async def screen_png(request: Request, session: Session, form: dict[str, str]) -> Response:
        i = int(request.path_params["i"])
        screens = hub.snapshot.screens
        if not 0 <= i < len(screens):
            return PlainTextResponse(f"no screen {i}: screens are 0..{len(screens) - 1}", status_code=404)
        return Response(screens[i][1], media_type="image/png", headers={"Cache-Control": "no-store"})

    async def camera_jpg(request: Request, session: Session, form: dict[str, str]) -> Response:
        data = await asyncio.to_thread(ctx.camera.jpeg, hub.camera)
        if not data:
            return PlainTextResponse("no camera frame yet", status_code=404)
        return Response(data, media_type="image/jpeg", headers={"Cache-Control": "no-store"})

    # -- the game log ---------------------------------------------------------------------------
    def _open_store() -> Any:
        from device.store import Store

        if ctx.store_path is None:
            raise LookupError("this session keeps no game log (--no-log)")
        return Store(ctx.store_path, read_only=True)

    def _records(game_id: int) -> tuple[Any, list[Any]]:
        from games import game_package

        with _open_store() as store:
            info = [g for g in store.games() if g.id == game_id]
            if not info:
                raise LookupError(f"there is no game {game_id} in {ctx.store_path}; the games are listed at /log")
            records = store.records(game_id)
        return game_package(info[0].game), records

    def _problem(exc: Exception, gid: int | None = None) -> Response:
        body = f'<p class=fail>{pages.esc(getattr(exc, "reason", None) or exc)}</p>'
        if gid is not None and not isinstance(exc, LookupError):
            # a log that cannot be replayed (edited by hand, damaged) still has its events: each as it is stored,
            # from the phone too (the message's command needs a terminal on the box)
            body += (f'<p id=damaged-export>What game {gid} holds, each event as it is stored (one that cannot be '
                     f'read says so): <a href="/log/{gid}/events.jsonl">export JSON lines</a></p>')
        return html(pages.layout("Game log", body, here="/log"), 404 if isinstance(exc, LookupError) else 500)

    async def log_list(request: Request, session: Session, form: dict[str, str]) -> Response:
        def listed() -> list[Any]:
            with _open_store() as store:
                return store.games()

        try:  # off the server's loop, as the other log pages: a big log on an SD card held every phone's presses
            games = await asyncio.to_thread(listed)
        except Exception as exc:
            return _problem(exc)
        return html(pages.games_page(games, f"The games in {ctx.store_path}", at_table=ctx.game_id()))

    async def log_game(request: Request, session: Session, form: dict[str, str]) -> Response:
        from device.web.timeline import timeline

        gid = int(request.path_params["gid"])
        try:
            module, records = await asyncio.to_thread(_records, gid)
            tl = await asyncio.to_thread(timeline, module.GAME, records)
        except Exception as exc:
            return _problem(exc, gid)
        refusals = []
        if ctx.game_id() == gid:
            refusals = [(c, r) for _s, c, a, r in hub.snapshot.commands if not a]
        return html(pages.timeline_page(gid, tl, refusals))

    def _at(gid: int, decision: int) -> tuple[Any, list[Any], list[str], Any, int]:
        from device.web.timeline import fold_until, timeline

        module, records = _records(gid)
        last = records[-1].decision if records else 0
        if decision > last:
            raise LookupError(f"game {gid} has steps 0 to {last}; there is no step {decision} (the timeline at "
                              f"/log/{gid} lists them)")
        state = fold_until(module.GAME, records, decision)
        views = list(module.GAME.views(state))
        entry = next((e for e in timeline(module.GAME, records).entries if e.decision == decision), None)
        return module, views, [str(getattr(v, "player", "")) for v in views], entry, last

    async def log_at(request: Request, session: Session, form: dict[str, str]) -> Response:
        gid, d = int(request.path_params["gid"]), int(request.path_params["d"])
        try:
            _m, _views, players, entry, last = await asyncio.to_thread(_at, gid, d)
        except Exception as exc:
            return _problem(exc, gid)
        return html(pages.replay_page(gid, d, entry, players, last))

    async def log_at_png(request: Request, session: Session, form: dict[str, str]) -> Response:
        from device.web.hub import png_bytes

        gid, d, i = (int(request.path_params[k]) for k in ("gid", "d", "i"))

        def draw() -> bytes:
            module, views, _players, _e, _l = _at(gid, d)
            if i >= len(views):
                raise LookupError(f"no screen {i}: game {gid}'s screens are 0..{len(views) - 1}")
            return png_bytes(render_still(module.GAME.name, views[i]))

        try:
            data = await asyncio.to_thread(draw)
        except Exception as exc:
            return PlainTextResponse(f"{exc}", status_code=404)
        return Response(data, media_type="image/png")

    async def export(request: Request, session: Session, form: dict[str, str]) -> Response:
        from device.web.timeline import export_csv, timeline

        gid, kind = int(request.path_params["gid"]), request.path_params["kind"]
        if kind not in ("jsonl", "csv"):
            return PlainTextResponse(f"there is no events.{kind}: the game's events are /log/{gid}/events.jsonl "
                                     f"and /log/{gid}/events.csv", status_code=404)

        def run() -> str:
            with _open_store() as store:
                if not store.has_game(gid):
                    raise LookupError(f"there is no game {gid} in {ctx.store_path}")
                lines = list(store.export_jsonl(gid))
            if kind == "jsonl":
                return "".join(line + "\n" for line in lines)
            module, records = _records(gid)
            return export_csv(lines, timeline(module.GAME, records))

        try:
            text = await asyncio.to_thread(run)
        except Exception as exc:
            return PlainTextResponse(str(exc), status_code=404)
        media = "application/x-ndjson" if kind == "jsonl" else "text/csv"
        name = f"pitboard-game-{gid}.{kind}"
        return Response(text, media_type=media, headers={"Content-Disposition": f'attachment; filename="{name}"'})

    # -- set-up ---------------------------------------------------------------------------------
    #: The set-up forms that have begun a game (each form carries its own ``once`` token): the same form
    #: sent again (a double tap, a reload that posts again) must not begin a second game.
    begun: deque[str] = deque(maxlen=64)
    #: A check's result, shown by a GET after the POST (``/setup?checked=TOKEN``): Back or a reload after
    #: Check then asks nothing (a page made by a POST made the phone's browser ask to send the form again).
    checked: dict[str, tuple[str, str, str]] = {}
    #: The games begun from this page so far (this server's own mark, then their count) and the last one's name: a
    #: form carries the mark and count it was drawn with, and a Start from a form drawn before another Start was
    #: taken is refused (an audit: two phones' Start 0.1 s apart, both ticked: Thunder Road began and was at once
    #: replaced by the Grand Tour, the first phone told its game began).  Counted here, not by the game at the
    #: table, which the loop changes later (a review: two Starts before the loop's next step both began).
    starts: list[Any] = [secrets.token_hex(4), 0, None]

    def start_mark() -> str:
        return f"{starts[0]}.{starts[1]}"

    def setup_html(session: Session, game: str, text: str, message: str = "", *, ok: bool = False,
                   status: int = 200, can_start: bool | None = None, restore: bool = False,
                   begun_now: bool = False, playing: str | None = None, ticked: bool = False) -> Response:
        from device.web.setup import game_names

        start = ctx.new_game is not None if can_start is None else can_start
        why_not = ""
        if start and ctx.startable is not None and game not in ctx.startable:
            start = False
            why_not = (f"this sim plays {pages.title_of(ctx.game)}: to play {pages.title_of(game)}, quit it and start "
                       f"`pitboard sim {game} --web …`")
        playing = ctx.in_progress() if playing is None and start else playing
        return html(pages.setup_page(game, game_names(), text, session.csrf, message, ok=ok, can_start=start,
                                     once=secrets.token_urlsafe(12), restore=restore, begun=begun_now,
                                     playing=playing, ticked=ticked, table=start_mark(), why_not=why_not), status)

    async def setup_get(request: Request, session: Session, form: dict[str, str]) -> Response:
        from device.web.setup import example_setup, game_names

        result = checked.get(request.query_params.get("checked", ""))
        if result is not None:
            game, text, message = result
            return setup_html(session, game, text, message, ok=True)
        game = request.query_params.get("game", ctx.game)
        if game not in game_names():
            return setup_html(session, ctx.game, example_setup(ctx.game), f"{game!r} is not a game; games are "
                              f"{', '.join(game_names())} (choose one in the list)", status=404)
        return setup_html(session, game, example_setup(game), restore=True)

    async def setup_post(request: Request, session: Session, form: dict[str, str]) -> Response:
        from device.web.setup import check_setup, example_setup, game_names, saved_files_notes

        game = form.get("game", ctx.game)
        # a browser sends a text box's lines ended CRLF: the untouched example below was never recognised
        text = form.get("setup", "").replace("\r\n", "\n")
        action = form.get("action", "check")
        if game not in game_names():
            return setup_html(session, ctx.game, text, f"{game!r} is not a game; games are "
                              f"{', '.join(game_names())} (choose one in the list)", status=400)
        if action == "example":
            return setup_html(session, game, example_setup(game))
        # The list was changed but the box still holds the other game's text (choosing in the list changes
        # nothing in the box): its untouched example is swapped for this game's; a table typed is kept.
        shown = form.get("shown", game)
        other = shown != game and shown in game_names()
        if other and text.strip() == example_setup(shown).strip():
            return setup_html(session, game, example_setup(game), f"the box held the {pages.title_of(shown)} example: here "
                              f"is the {pages.title_of(game)} example instead; edit it, then press Check", status=400)
        options, message = check_setup(game, text, ctx.chart_path)
        if options is None:
            if other and _holds_setup_of(shown, game, text):
                message += (f" (the box still holds the {pages.title_of(shown)} setup; for a {pages.title_of(game)} "
                            "one, press Example, which replaces what is in the box)")
            # "End the game in progress" stays ticked: the owner mends the setup and starts again
            return setup_html(session, game, text, message, status=400, ticked=form.get("replace") == "1")
        if action == "start":
            if ctx.new_game is None:
                return setup_html(session, game, text, "this host cannot start a game from the page", status=400,
                                  can_start=False)
            once = form.get("once", "")
            seen = form.get("table")
            if seen is not None and seen != start_mark() and not (once and once in begun):
                # another phone's Start was taken since this form was drawn (see ``starts``; a game with no moves yet
                # was replaced so without a word)
                other = f"a {pages.title_of(starts[2])} game" if starts[2] else "another game"
                return setup_html(session, game, text, f"{other[:1].upper()}{other[1:]} was started from another "
                                  "phone since this page was drawn: press Start this game again to start this one "
                                  "in its place", status=409)
            playing = ctx.in_progress()
            if playing is not None and form.get("replace") != "1" and not (once and once in begun):
                # one tap next to Check left the game at the table behind, with no word to anybody
                return setup_html(session, game, text, f"{playing} is being played: starting this one ends it "
                                  "unfinished (it stays in the game log, and is not resumed). Tick 'End the game in "
                                  "progress' and press "
                                  "Start this game again to go on", status=409, playing=playing)
            if once and once in begun:
                return setup_html(session, game, text, "this form has begun its game already (it was sent twice: "
                                  "a double tap, or the page reloaded); that game is on the Live page. To begin "
                                  "another one, press Start this game again", status=409, begun_now=True)
            try:
                result = ctx.new_game(game, options)
            except ValueError as exc:  # this host does not begin that game: nothing began, the form stays usable
                return setup_html(session, game, text, str(exc), status=400)
            if once:
                begun.append(once)
            starts[1], starts[2] = starts[1] + 1, game  # (no await since the check: no other Start came between)
            result += saved_files_notes(game, options, ctx.chart_path)  # (options: the setup's, with the files')
            return setup_html(session, game, text, result, ok=True, begun_now=True)
        token = secrets.token_urlsafe(9)
        checked[token] = (game, text, message)
        while len(checked) > 32:  # the oldest results go first (a dict keeps its order)
            del checked[next(iter(checked))]
        return RedirectResponse(f"/setup?checked={token}", status_code=303)

    async def rules_get(request: Request, session: Session, form: dict[str, str], message: str = "",
                        typed: tuple[str, Any, Any, str] | None = None, status: int = 200,
                        chart_typed: dict[str, list[str]] | None = None) -> Response:
        """The rule facts page; ``typed``: (game, facts, cards, why not saved) of a refused save, shown as typed;
        ``chart_typed``: the grid of a refused chart save, shown as sent, ``message`` saying why."""
        from device.web.setup import chart_view

        try:
            gear = int(request.query_params.get("gear", "1"))
        except ValueError:
            gear = 1
        gear = min(6, max(1, gear))
        from device.web.setup import FIRE_FILE, fire_view

        chart, saved, statuses, verdicts, problem = chart_view(ctx.chart_path, gear)
        fire_path = ctx.chart_path.parent / FIRE_FILE
        faces, effects, fire_problem = fire_view(fire_path)
        fire_msg = "Fire die saved." if request.query_params.get("fire") else fire_problem
        more = pages.fire_section(faces, effects, session.csrf, str(fire_path), fire_msg)
        from device.web import facts

        for game in facts.GAMES:
            path = ctx.chart_path.parent / facts.file_name(game)
            values, cards, facts_problem = facts.current(game, path)
            saved_msg = "Facts saved." if request.query_params.get("facts") == game else facts_problem
            ok = not facts_problem or bool(request.query_params.get("facts"))
            if typed is not None and typed[0] == game:
                _, values, cards, saved_msg = typed
                ok = False
            more += pages.facts_section(game, values, cards, facts.TIMINGS, session.csrf, str(path), saved_msg, ok=ok)
        if chart_typed is not None:
            chart = chart_typed
        return html(pages.chart_page(chart, saved, statuses, gear, verdicts, session.csrf, str(ctx.chart_path),
                                     message or problem, more, ok=chart_typed is None), status)

    async def chart_post(request: Request, session: Session, form: dict[str, str]) -> Response:
        from device.web.setup import save_chart, typed_chart

        try:
            save_chart(ctx.chart_path, form)
        except ValueError as exc:
            # the page again with the grid as sent and why it was not saved: the page of the message alone lost
            # every cell chosen (a phone audit: 54 of them)
            why = str(exc).removeprefix("the chart was not saved: ")
            return await rules_get(request, session, form, f"Not saved: {why}", status=400,
                                   chart_typed=typed_chart(ctx.chart_path, form))
        return RedirectResponse(f"/rules?saved=1&gear={form.get('gear', '1')}", status_code=303)

    async def fire_post(request: Request, session: Session, form: dict[str, str]) -> Response:
        from device.web.setup import FIRE_FILE, save_fire

        try:
            save_fire(ctx.chart_path.parent / FIRE_FILE, form)
        except ValueError as exc:
            return html(pages.layout("Rule facts", f"<p class=fail id=fire-message>{pages.esc(exc)}</p><p>Go back "
                                     "with the browser's Back to mend it (the faces typed are kept there), or "
                                     '<a href="/rules#fire">see the saved faces</a>.</p>', here="/rules"), 400)
        return RedirectResponse("/rules?fire=1#fire", status_code=303)

    async def facts_post(request: Request, session: Session, form: dict[str, str]) -> Response:
        from device.web import facts

        game = request.path_params["game"]
        if game not in facts.GAMES:
            return PlainTextResponse(f"{game!r} has no facts edited here; games are {', '.join(facts.GAMES)}",
                                     status_code=404)
        path = ctx.chart_path.parent / facts.file_name(game)
        try:
            await asyncio.to_thread(facts.save_facts, game, path, form)
        except ValueError as exc:
            # the page again with what was typed and why it was not saved: the page of the message alone, and
            # its link back to the saved values, lost every entry of the form
            values, cards = facts.as_typed(game, path, form)
            why = str(exc).removeprefix("the facts were not saved: ")  # ("Not saved: the facts were not saved: …")
            return await rules_get(request, session, form, typed=(game, values, cards, f"Not saved: {why}"),
                                   status=400)
        return RedirectResponse(f"/rules?facts={game}#facts-{game}", status_code=303)

    async def rules_saved(request: Request, session: Session, form: dict[str, str]) -> Response:
        msg = "Chart saved." if request.query_params.get("saved") else ""
        return await rules_get(request, session, form, msg)

    async def check(request: Request, session: Session, form: dict[str, str]) -> Response:
        lines = await asyncio.to_thread(ctx.check) if ctx.check is not None else []
        return html(pages.check_page(lines))

    # -- the phones paired ----------------------------------------------------------------------
    async def phones_get(request: Request, session: Session, form: dict[str, str]) -> Response:
        message, ok = session.flashes.pop(request.query_params.get("said", ""), ("", True))
        return html(pages.phones_page(list(ctx.pairing.sessions.values()), session, ctx.pairing.clock(),
                                      session.csrf, message=message, ok=ok))

    def _back_to_phones(session: Session, message: str, ok: bool = True) -> Response:
        """The Phones page again at its own address, saying ``message`` once, in the tab that sent the form (a
        reload sends no form again)."""
        said = secrets.token_urlsafe(6)
        session.flashes[said] = (message, ok)
        while len(session.flashes) > 8:  # messages never read (a tab closed first): the oldest go
            del session.flashes[next(iter(session.flashes))]
        return RedirectResponse(f"/phones?said={said}", status_code=303)

    async def phones_role(request: Request, session: Session, form: dict[str, str]) -> Response:
        if form.get("role") not in ("owner", "guest"):
            return PlainTextResponse("role must be owner or guest", status_code=400)
        owner = form.get("role") == "owner"
        target, why = ctx.pairing.set_owner(form.get("phone", ""), owner)
        if target is None:
            return _back_to_phones(session, f"Not changed: {why}.", ok=False)
        return _back_to_phones(session, f"{target.who} is {'an owner' if owner else 'a guest'}'s phone now.")

    async def phones_forget(request: Request, session: Session, form: dict[str, str]) -> Response:
        target = ctx.pairing.by_handle(form.get("phone", ""))
        if target is not None and target is not session and not session.owner:
            # a guest's phone forgets itself only (it could otherwise forget the owner's, and then pair as one)
            return _back_to_phones(session, "Not changed: a guest's phone forgets only itself; an owner's phone "
                                            "forgets others.", ok=False)
        if target is session and len(ctx.pairing.sessions) > 1 and sole_owner(session, ctx.pairing.sessions.values()):
            # the last owner's phone leaving the others paired: any of them could pair again as the owner's (a review)
            return _back_to_phones(session, "Not changed: this is the only owner's phone; make another phone an "
                                            "owner's first, or forget the others first.", ok=False)
        gone = ctx.pairing.forget(form.get("phone", ""), renew=target is not session)
        hub.wake()  # the phone forgotten: its open page's stream ends now, not at its next update
        if gone is session:  # this phone: the pairing page next, its cookie gone
            resp = RedirectResponse("/pair", status_code=303)
            resp.delete_cookie(SESSION_COOKIE, path="/")
            return resp
        return _back_to_phones(session, f"Forgotten: {gone.who}; the pairing code is a new one now."
                                        if gone is not None else
                                        "That phone was forgotten already.")

    # -- teaching dice from the live camera ------------------------------------------------------
    def _crops() -> Any:
        from device.web.teach import Crops

        if ctx.crops is None:
            ctx.crops = Crops()
        return ctx.crops

    async def teach_get(request: Request, session: Session, form: dict[str, str]) -> Response:
        return await _teach_page(session)

    async def teach_tray(request: Request, session: Session, form: dict[str, str]) -> Response:
        from device.web.teach import drawn, tray_crop

        shot = hub.camera
        if shot is None:
            return PlainTextResponse("no camera frame yet", status_code=404)
        png, _n = await asyncio.to_thread(lambda: drawn(tray_crop(shot)))
        return Response(png, media_type="image/png", headers={"Cache-Control": "no-store"})

    async def teach_take(request: Request, session: Session, form: dict[str, str]) -> Response:
        from device.web.teach import check_names, new_die_note, tray_crop

        die, face = form.get("die", "").strip(), form.get("face", "").strip()
        shot = hub.camera
        problem = check_names(die, face) or (None if shot is not None else "no camera frame to take")
        if problem:
            return await _teach_page(session, status=400, die=die, face=face, message=problem)
        assert shot is not None
        from device.camera_input import blank_look, tray_look

        crop = await asyncio.to_thread(tray_crop, shot)  # (the page's thread must not wait on image work)
        if await asyncio.to_thread(lambda: blank_look(tray_look(crop))):  # (an audit: a black frame was offered
            # to teach, as "one die filling it")
            return await _teach_page(session, status=400, die=die, face=face,
                                     message="the camera's picture of the tray is all black (or all white): the "
                                             "camera covered, or the lights off? Nothing can be taught from it; "
                                             "light the tray, lay the die in it, and press Take again")
        token, item = await asyncio.to_thread(lambda: _crops().keep(crop, die, face))
        notes = [] if item.dice else ["no die found in the crop: it would be taught as one die filling it"]
        notes.append(await asyncio.to_thread(new_die_note, die, ctx.faces_path))
        message = "; ".join(n for n in notes if n)
        return await _teach_page(session, frame=shot.index, die=die, face=face, token=token, dice=item.dice,
                                 message=message)

    async def teach_crop(request: Request, session: Session, form: dict[str, str]) -> Response:
        item = _crops().get(request.path_params["token"])
        if item is None:
            return PlainTextResponse("that crop is gone: take it again", status_code=404)
        return Response(item.png, media_type="image/png")

    async def _sent_again(store: Any, token: str) -> str | None:
        """What the first confirmation of ``token`` said, waited for while it runs (a double tap sends the
        second before the first has answered, and the phone shows the second's answer); None: not sent."""
        if store is None:
            return None
        for _ in range(200):
            known, message = store.done(token)
            if not known:
                return None
            if message is not None:
                return f"{message} (sent twice: done once)"
            await asyncio.sleep(0.05)
        return None

    async def teach_confirm(request: Request, session: Session, form: dict[str, str]) -> Response:
        from device.web.teach import teach

        token = form.get("token", "")
        item = _crops().take(token)
        if item is None:
            again = await _sent_again(_crops(), token)
            if again is not None:
                return await _teach_page(session, message=again, ok=True)
            return await _teach_page(session, status=400, message="that crop is gone (confirmed already, or too "
                                     "old): take it again")
        try:
            _library, message = await asyncio.to_thread(teach, item, ctx.faces_path, ctx.config_source,
                                                        ctx.on_library)
        except ValueError as exc:
            _crops().finish(token, None)
            return await _teach_page(session, status=400, die=item.die, face=item.face, message=str(exc))
        _crops().finish(token, message)
        return await _teach_page(session, die=item.die, face=item.face, message=message, ok=True)

    async def teach_undo(request: Request, session: Session, form: dict[str, str]) -> Response:
        from device.web.teach import undo_last

        try:
            message = await asyncio.to_thread(undo_last, form.get("last", ""), ctx.faces_path, ctx.config_source,
                                              ctx.on_library)
        except ValueError as exc:
            return await _teach_page(session, status=400, library_message=str(exc))
        return await _teach_page(session, library_message=message, library_ok=True)

    async def teach_template(request: Request, session: Session, form: dict[str, str]) -> Response:
        from device.web.calibrate import previous_calibration
        from device.web.teach import Outlines, learn_outline

        name = form.get("template", "").strip()
        shot = hub.camera
        if shot is None:
            return await _teach_page(session, outline_message="no camera frame to learn from", status=400)
        calibration = getattr(shot.reader, "calibration", None)
        if calibration is None:
            calibration = await asyncio.to_thread(previous_calibration, ctx.calibration_path)
        try:
            shape, png, text = await asyncio.to_thread(learn_outline, shot.image, calibration, name)
        except ValueError as exc:
            return await _teach_page(session, outline_message=str(exc), name=name, status=400)
        if ctx.outlines is None:
            ctx.outlines = Outlines()
        token = ctx.outlines.keep(shape, png, text)
        return await _teach_page(session, name=name, outline_token=token, outline_text=text)

    async def teach_outline_png(request: Request, session: Session, form: dict[str, str]) -> Response:
        item = ctx.outlines.get(request.path_params["token"]) if ctx.outlines is not None else None
        if item is None:
            return PlainTextResponse("that outline is gone: learn it again", status_code=404)
        return Response(item.png, media_type="image/png")

    async def teach_template_confirm(request: Request, session: Session, form: dict[str, str]) -> Response:
        from device.web.teach import save_outline

        token = form.get("token", "")
        item = ctx.outlines.take(token) if ctx.outlines is not None else None
        if item is None:
            again = await _sent_again(ctx.outlines, token)
            if again is not None:
                return await _teach_page(session, outline_message=again, outline_ok=True)
            return await _teach_page(session, outline_message="that outline is gone (added already, or too old): "
                                     "learn it again", status=400)
        try:
            message = await asyncio.to_thread(save_outline, item)
        except ValueError as exc:
            ctx.outlines.finish(token, None)
            return await _teach_page(session, outline_message=str(exc), status=400)
        ctx.outlines.finish(token, message)
        if ctx.on_outlines is not None:
            ctx.on_outlines()
        return await _teach_page(session, outline_message=message, outline_ok=True, name=item.shape.name)

    async def _teach_page(session: Session, *, status: int = 200, name: str = "", outline_token: str | None = None,
                          outline_text: str = "", outline_message: str = "", outline_ok: bool = False,
                          library_message: str = "", library_ok: bool = False, **dice: Any) -> Response:
        from device.web.calibrate import previous_calibration
        from device.web.teach import library_view, template_names

        shot = hub.camera
        frame = shot.index if shot else None
        calibrated = shot is not None and getattr(shot.reader, "calibration", None) is not None
        if shot is not None and not calibrated:
            calibrated = await asyncio.to_thread(previous_calibration, ctx.calibration_path) is not None
        more = pages.template_section(session.csrf, template_names(), frame=frame, calibrated=calibrated, name=name,
                                      token=outline_token, text=outline_text, message=outline_message,
                                      ok=outline_ok)
        view = await asyncio.to_thread(library_view, ctx.faces_path, ctx.config_source)
        library = pages.library_section(session.csrf, view, message=library_message, ok=library_ok)
        return html(pages.teach_page(session.csrf, frame=dice.pop("frame", frame), templates=more, library=library,
                                     **dice), status)

    # -- calibration from the live camera --------------------------------------------------------
    async def _calibrate_page(session: Session, *, status: int = 200, **kw: Any) -> Response:
        from device.web.calibrate import previous_calibration, summary

        shot = hub.camera
        cal = getattr(shot.reader, "calibration", None) if shot is not None else None
        if cal is None:
            cal = await asyncio.to_thread(previous_calibration, ctx.calibration_path)
        current = summary(cal) if cal is not None else "not calibrated: the camera reads dice only"
        size = (f"The frame is {shot.image.shape[1]}×{shot.image.shape[0]} pixels; corners are counted in those "
                "pixels, not in the picture drawn to fit this screen (tap it to open the frame at full size)."
                if shot is not None else "")
        return html(pages.calibrate_page(session.csrf, frame=shot.index if shot else None, current=current,
                                         size=size, **kw), status)

    async def calibrate_get(request: Request, session: Session, form: dict[str, str]) -> Response:
        return await _calibrate_page(session)

    async def calibrate_frame_jpg(request: Request, session: Session, form: dict[str, str]) -> Response:
        import cv2

        shot = hub.camera
        if shot is None:
            return PlainTextResponse("no camera frame yet", status_code=404)
        ok, buf = await asyncio.to_thread(cv2.imencode, ".jpg", shot.image, [cv2.IMWRITE_JPEG_QUALITY, 85])
        return Response(bytes(buf) if ok else b"", media_type="image/jpeg", headers={"Cache-Control": "no-store"})

    async def calibrate_post(request: Request, session: Session, form: dict[str, str]) -> Response:
        from device.web.calibrate import Proposals, calibrate_frame, parse_mat, parse_points

        mat_text, points_text = form.get("mat", "").strip(), form.get("points", "").strip()
        shot = hub.camera
        try:
            if shot is None:
                raise ValueError("no camera frame to calibrate from: is the camera on?")
            mat = parse_mat(mat_text) if mat_text else None
            image = shot.image
            points = parse_points(points_text, (int(image.shape[1]), int(image.shape[0])))
            cal, warning = await asyncio.to_thread(lambda: calibrate_frame(image, mat_mm=mat, points=points,
                                                                           path=ctx.calibration_path))
            if ctx.proposals is None:
                ctx.proposals = Proposals()
            token, item = await asyncio.to_thread(ctx.proposals.keep, image, cal, warning)
        except ValueError as exc:
            return await _calibrate_page(session, status=400, mat=mat_text, points=points_text, message=str(exc))
        return await _calibrate_page(session, mat=mat_text, points=points_text, token=token, text=item.text)

    async def calibrate_preview(request: Request, session: Session, form: dict[str, str]) -> Response:
        item = ctx.proposals.get(request.path_params["token"]) if ctx.proposals is not None else None
        if item is None:
            return PlainTextResponse("that calibration is gone: calibrate again", status_code=404)
        return Response(item.png, media_type="image/png")

    async def calibrate_confirm(request: Request, session: Session, form: dict[str, str]) -> Response:
        from device.web.calibrate import save

        token = form.get("token", "")
        item = ctx.proposals.take(token) if ctx.proposals is not None else None
        if item is None:
            again = await _sent_again(ctx.proposals, token)
            if again is not None:
                return await _calibrate_page(session, ok=True, message=again)
            return await _calibrate_page(session, status=400, message="that calibration is gone (saved already, or "
                                         "too old): calibrate again")
        if item.at < ctx.calibration_saved_at:  # (set before the save's await: two confirms at once, one saved)
            # another phone's calibration was saved after this preview was drawn: saving this older one over it
            # said nothing of the other (a review of two phones)
            ctx.proposals.finish(token, None)
            return await _calibrate_page(session, status=409, message="not saved: another phone saved a calibration "
                                         "after this preview was drawn, and the table is read with that one; to use "
                                         "this camera picture instead, calibrate again")
        saved_before, ctx.calibration_saved_at = ctx.calibration_saved_at, time.monotonic()
        try:
            path = await asyncio.to_thread(save, item.calibration, ctx.calibration_path)
        except ValueError as exc:
            ctx.calibration_saved_at = saved_before
            ctx.proposals.finish(token, None)
            return await _calibrate_page(session, status=500, message=str(exc))
        if ctx.on_calibration is not None:
            ctx.on_calibration(item.calibration)
        message = f"saved {path}: the table is read with it from the next frame on"
        ctx.proposals.finish(token, message)
        return await _calibrate_page(session, ok=True, message=message)

    async def static(request: Request) -> Response:
        name = request.path_params["name"]
        if name == "style.css":
            return Response(pages.CSS, media_type="text/css", headers={"Cache-Control": "max-age=3600"})
        scripts = {"live.js": pages.LIVE_JS, "setup.js": pages.SETUP_JS, "log.js": pages.LOG_JS}
        if name in scripts:
            if _session(ctx, request) is None:
                return PlainTextResponse("not paired", status_code=401)
            script = scripts[name]
            return Response(script, media_type="text/javascript", headers={"Cache-Control": "max-age=3600"})
        return PlainTextResponse("not found", status_code=404)

    routes = [
        Route("/pair", pair_get, methods=["GET"]),
        Route("/pair", pair_post, methods=["POST"]),
        Route("/static/{name}", static),
        Route("/", guard(live)),
        Route("/events", guard(events)),
        Route("/press", guard(press), methods=["POST"]),
        Route("/dice", guard(dice), methods=["POST"]),
        Route("/screen/{i:int}.png", guard(screen_png)),
        Route("/camera.jpg", guard(camera_jpg)),
        Route("/log", guard(log_list)),
        Route("/log/{gid:int}", guard(log_game)),
        Route("/log/{gid:int}/events.{kind:str}", guard(export)),
        Route("/log/{gid:int}/at/{d:int}", guard(log_at)),
        Route("/log/{gid:int}/at/{d:int}/screen/{i:int}.png", guard(log_at_png)),
        Route("/setup", guard(setup_get, owner=True), methods=["GET"]),
        Route("/setup", guard(setup_post, owner=True), methods=["POST"]),
        Route("/rules", guard(rules_saved), methods=["GET"]),
        Route("/rules/chart", guard(chart_post, owner=True), methods=["POST"]),
        Route("/rules/fire", guard(fire_post, owner=True), methods=["POST"]),
        Route("/rules/facts/{game}", guard(facts_post, owner=True), methods=["POST"]),
        Route("/check", guard(check)),
        Route("/phones", guard(phones_get), methods=["GET"]),
        Route("/phones/forget", guard(phones_forget), methods=["POST"]),
        Route("/phones/role", guard(phones_role, owner=True), methods=["POST"]),
        Route("/teach", guard(teach_get, owner=True), methods=["GET"]),
        Route("/teach", guard(teach_take, owner=True), methods=["POST"]),
        Route("/teach/tray.png", guard(teach_tray, owner=True)),
        Route("/teach/crop/{token}.png", guard(teach_crop, owner=True)),
        Route("/teach/confirm", guard(teach_confirm, owner=True), methods=["POST"]),
        Route("/teach/undo", guard(teach_undo, owner=True), methods=["POST"]),
        Route("/teach/template", guard(teach_template, owner=True), methods=["POST"]),
        Route("/teach/outline/{token}.png", guard(teach_outline_png, owner=True)),
        Route("/teach/template/confirm", guard(teach_template_confirm, owner=True), methods=["POST"]),
        Route("/calibrate", guard(calibrate_get, owner=True), methods=["GET"]),
        Route("/calibrate", guard(calibrate_post, owner=True), methods=["POST"]),
        Route("/calibrate/frame.jpg", guard(calibrate_frame_jpg, owner=True)),
        Route("/calibrate/preview/{token}.png", guard(calibrate_preview, owner=True)),
        Route("/calibrate/confirm", guard(calibrate_confirm, owner=True), methods=["POST"]),
    ]

    async def no_page(request: Request, exc: Exception) -> Response:
        """An address with no page: the pages' own words, not Starlette's bare "Not Found" (a step number
        typed wrong, /log/3/at/-1), and a form's address opened again (the browser's back after a POST, a
        bookmark of /teach/confirm) goes to its page.  Unpaired browsers learn nothing of the addresses."""
        status = getattr(exc, "status_code", 404)
        headers = getattr(exc, "headers", None)  # (a 405's Allow)
        wants_page = "text/html" in request.headers.get("accept", "text/html")
        if not wants_page or (status == 405 and request.method not in ("GET", "HEAD")):
            # (a POST to a page's address: the page is there, it takes no form)
            return PlainTextResponse("not found" if status == 404 else f"{request.method} is not taken here",
                                     status_code=status, headers=headers)
        session = _session(ctx, request)
        if session is None:
            return RedirectResponse("/pair", status_code=303)
        top = "/" + request.url.path.strip("/").split("/")[0]
        pages_at = {h for h, _ in pages.NAV}
        # (a guest's phone is sent to a page it opens: an owner's page under the address was a refusal)
        where = top if top in pages_at and (session.owner or top not in pages.OWNER_PAGES) else "/"
        if status == 405 and request.method in ("GET", "HEAD"):
            return RedirectResponse(where, status_code=303)
        name = dict(pages.NAV)[where]
        body = (f'<p class="refusal">There is no page at <code>{pages.esc(request.url.path)}</code>'
                f"{' (the steps of a game are numbered from 0)' if '/at/' in request.url.path else ''}.</p>"
                f'<p><a href="{where}">{pages.esc(name)}</a></p>')
        with pages.drawn_for(owner=session.owner):
            return html(pages.layout("No such page", body, here=where), status)

    return Starlette(routes=routes, exception_handlers={404: no_page, 405: no_page})


def render_still(game: str, view: Any) -> Any:
    """A dashboard drawn outside the loop (no shared frame cache: the loop's thread owns that one)."""
    from device.app import plain_render
    from device.dashboards import dashboard

    try:
        module = dashboard(game)
    except ValueError:
        return plain_render(game, view, True)
    return module.render(view, blink_on=True)


class WebServer:
    """uvicorn in a daemon thread.  ``start`` returns once it listens (or raises what stopped it).  ``sock``:
    a socket already bound to ``host``:``port`` to serve on (closed when the server stops), so that the
    port cannot be taken between the caller's check and the start."""

    def __init__(self, ctx: WebContext, host: str, port: int, *, sock: socket.socket | None = None) -> None:
        import uvicorn

        self.ctx = ctx
        self.host = host
        self.port = port
        self.sock = sock
        config = uvicorn.Config(create_app(ctx), host=host, port=port, log_level="warning", access_log=False,
                                lifespan="off", timeout_graceful_shutdown=1, proxy_headers=False)
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self._run, name="pitboard-web", daemon=True)
        self.error: BaseException | None = None

    def _run(self) -> None:
        try:
            self.server.run(sockets=None if self.sock is None else [self.sock])
        except BaseException as exc:  # noqa: BLE001 - reported by start()
            self.error = exc

    def start(self, timeout: float = 10.0) -> WebServer:
        self.thread.start()
        t0 = time.monotonic()
        while not self.server.started:
            if self.error is not None or not self.thread.is_alive():
                raise OSError(f"the web page could not listen on {self.host}:{self.port}"
                              f"{': ' + str(self.error) if self.error else ''}; is the port taken? choose another "
                              "([web] port, or --web HOST:PORT)")
            if time.monotonic() - t0 > timeout:
                raise OSError(f"the web page did not start listening on {self.host}:{self.port} within {timeout:g} s")
            time.sleep(0.01)
        sockets = [s for srv in getattr(self.server, "servers", []) for s in getattr(srv, "sockets", [])]
        if sockets and self.port == 0:
            self.port = int(sockets[0].getsockname()[1])
        return self

    @property
    def url(self) -> str:
        host = {"0.0.0.0": "127.0.0.1", "": "127.0.0.1", "::": "::1"}.get(self.host, self.host)
        return f"http://[{host}]:{self.port}/" if ":" in host else f"http://{host}:{self.port}/"

    def stop(self) -> None:
        self.ctx.hub.close()
        self.server.should_exit = True
        if self.thread.is_alive():
            self.thread.join(timeout=5)
