"""The one loop that owns the game: inputs → commands → rules → store → views → screens.

Why one loop, no threads of its own: every change of the game passes through :meth:`App.apply`, in
order, on one thread, so there is nothing to lock and a test can drive the appliance step by step.  The
only other threads are gpiozero's, and they only put raw edges on a queue (:mod:`device.buttons`).

The loop knows no game's vocabulary.  What a player can do is the game's menu
(``GAME.menu(state)``, :mod:`games.core.table_input`); this module walks it with the buttons
(:mod:`device.menus`), feeds it the camera (:mod:`device.camera_input`) and draws it
(:mod:`device.dashboards.pages`).

The buttons:

* **SELECT** — the next choice (long: the previous one); both wrap round.
* **OK** (or the chooser's own player button) — take the choice: a list opens, a command is sent, a roll
  opens the dice entry.  Long OK adds the extra hazard tokens the camera counted (after its notice).
* **BACK** — up one list; at the top, undo the last decision (long: the last few taken at the same
  player's step, :meth:`App.undo_plan`); one taken at another player's step, or any once the game is over,
  at a second BACK, the first saying which (:meth:`App._back_undo`).
* **NEXT** — OK, then OK on each list's default down to a command: at the top level the step's usual
  way on as the game names it, whatever the cursor ("Moved", "Template placed", "Roll skid dice"; nothing
  where the step is a decision), in an open list the highlighted choice (Damage… › Ben › Large car: NEXT =
  its usual damage token).
  Long NEXT opens the legend on the chooser's screen: what every symbol of the dashboard means (SELECT pages,
  any other closes; it closes by itself as the menu does, after :data:`MENU_IDLE_S` without a press).
* In the dice entry: SELECT / long SELECT cycle the face, OK keeps it as the next die, BACK removes
  the last one (or closes the entry), NEXT sends the roll.

What the screens show: the chooser's screen shows the menu page (the path, the highlighted choice with
its neighbours and its place "3/7", and a line of facts from the game), or the dice entry (which die,
how many so far); after :data:`MENU_IDLE_S` without a press it shows the dashboard again, and the next
SELECT or OK only brings the menu back.  Everybody else sees their dashboard.  A refusal shows its whole
reason on the sender's screen, page after page, until the next press or accepted command (or
:data:`REFUSAL_STANDS_S`); a press once it has stood :data:`NOTICE_S` only puts it away.

Everything with a side effect — the clock, the buttons, the camera and the reader of its frames, the
screens, the store — is injected.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from games.core import Alert, Command, Match, Outcome, Prompt
from games.core.table_input import Choice, DiceRequest, Menu, choice_name

from device.buttons import ButtonEvent, ButtonSource
from device.camera import Camera, CameraStatus, Frame
from device.camera_input import (  # noqa: F401  (re-exported: the loop's edges)
    CameraInput,
    Mismatch,
    TableReader,
    VisionReader,
    car_tags_from_options,
    chooser_of,
    same_dice,
)
from device.config import Region
from device.dashboards import pages
from device.menus import DiceEntry, MenuCursor, faces_of, plan
from device.store import StoreError

Clock = Callable[[], float]

log = logging.getLogger("pitboard.app")

#: The loop and its edges (the vision reader and the car tags are re-exported for the commands that build
#: an App).
__all__ = ["App", "Applied", "CameraInput", "Mismatch", "Notice", "Refusal", "TableReader", "VisionReader",
           "car_tags_from_options", "open_match", "render_page", "same_dice", "setup_options"]

#: How long a one-off notice stays on the screens.
NOTICE_S = 4.0
#: The notices that say a roll's dice as read or typed ("camera: 3 5 1", "camera: Ana 2", "phone: 4"): shown before
#: the other passing notices, the news the roll made among them.
READINGS = frozenset({"dice", "dice_taken"})
#: How long a game's news stays on every screen (a stage's points, an ability gained): read across the table.
NEWS_S = 12.0
#: Once the game is over, its last news (how it was won, the tour's tie-breaks) is told again after the dashboards
#: have stood this long: told once, for about 12 s, it was gone for good (a walkthrough of a Grand Tour's end).
FINAL_NEWS_AGAIN_S = 30.0
#: How long each page of a refusal's reason stays up (it is shown whole, page after page, and again from the first).
REFUSAL_PAGE_S = 3.5
#: How long a refusal stands at most with no press (its pages shown twice at least): the player laying a template
#: looks up from the table to read it; a refusal on every screen (for a player with none) gives the dashboards
#: back in the end.
REFUSAL_STANDS_S = 60.0
#: A menu page's footer alert too long for its line shows a piece at a time, each this long: the screens' common
#: beat.  Every piece begins on it (see :func:`turns_since`).
ALERT_PIECE_S = 2.0
#: Alerts flash once a beat: lit this long from its start, then dark until the next (the dashboard under a banner
#: shows through).  They were lit half a second of each second: a news piece of three lines was read in two
#: half-second glimpses before the next piece took its place (an audit); lit 1.5 s, each piece is read whole.
LIT_S = 1.5


def turns_since(now: float, since: float) -> int:
    """How many beats of :data:`ALERT_PIECE_S` a notice posted at ``since`` has turned by ``now``: its pieces
    change on the screens' common beat, where a banner lights, so each piece is lit whole (the first stands from
    when it is posted to the beat after the next one it meets, one to two beats)."""
    return max(0, int((now - _first_beat(since)) // ALERT_PIECE_S))


def turns_end(since: float, turns: int) -> float:
    """When a notice posted at ``since`` has shown ``turns`` beats (each piece of it once, with ``turns`` its
    pieces)."""
    return _first_beat(since) + turns * ALERT_PIECE_S


def _first_beat(since: float) -> float:
    return math.ceil(since / ALERT_PIECE_S) * ALERT_PIECE_S


def lit(now: float) -> bool:
    """Whether the flashing alerts are lit at ``now`` (the first :data:`LIT_S` of each beat)."""
    return now % ALERT_PIECE_S < LIT_S


#: After this long without a press the chooser's screen shows their dashboard again.
MENU_IDLE_S = 20.0
#: Buttons whose first press while the dashboard shows only brings the menu back.  BACK too (an audit: BACK
#: pressed on a dashboard undid the player before's move, a decision the presser could not see); NEXT is the
#: step's usual way on, meant to be pressed without the menu (README, "NEXT"), and a held BACK is a deliberate undo.
WAKE_BUTTONS = ("select", "ok", "back")


class Displays(Protocol):
    """``device.displays.DisplayBank`` (or a test double): one image per player."""

    def show(self, player: str, image: Any) -> Any:
        ...


Renderer = Callable[[str, Any, bool], Any]


#: How a BACK that undoes another player's decision (or one once the game is over) asks to be pressed again
#: (its start: "hold BACK again to undo …" for a held one): :meth:`App._back_undo`.
ASK_AGAIN = "BACK again to undo "


def roll_name(request: DiceRequest) -> str:
    """A roll's dice as a few words: "3 hits: evade dice" → "evade dice", "the direction die (d6)" → "direction die"."""
    return request.dice_name.rpartition(": ")[2].removeprefix("the ")


def default_renderer() -> Renderer:
    """``device.dashboards.render_view``; for a game with no dashboard yet, :func:`plain_render`."""
    from device.dashboards import dashboard, render_view

    has: dict[str, bool] = {}

    def render(game: str, view: Any, blink_on: bool) -> Any:
        if game not in has:
            try:
                dashboard(game)
                has[game] = True
            except ValueError:
                has[game] = False
        if has[game]:
            return render_view(game, view, blink_on=blink_on)
        return plain_render(game, view, blink_on)

    return render


def plain_render(game: str, view: Any, blink_on: bool) -> Any:
    """A plain 128×64 page (player, step, prompt, alerts) for a game without a dashboard: the prompt is
    wrapped, never cut."""
    title = f"{getattr(view, 'player', '')} · {getattr(view, 'step', '')}"
    text = str(getattr(view, "prompt", ""))
    alerts = getattr(view, "alerts", ())
    if alerts and blink_on:
        text = f"{alerts[0].text}\n{text}"
    return pages.render_text(pages.text_pages(title, text)[0])


@dataclass(frozen=True)
class Notice:
    """An app-level message for the screens (not a rules alert): ``until`` None = until withdrawn."""

    kind: str
    text: str
    player: str | None = None
    until: float | None = None
    since: float = 0.0  # when it was posted: a long one's pieces turn from its first


@dataclass(frozen=True)
class Refusal:
    """A refusal's whole reason, shown on ``player``'s screen (None: everybody's) from ``since``."""

    player: str | None
    pages: tuple[pages.TextPage, ...]
    since: float

    def page_index(self, now: float) -> int:
        """Which page is shown at ``now``: each for REFUSAL_PAGE_S, then the first again."""
        return int(max(0.0, now - self.since) / REFUSAL_PAGE_S) % len(self.pages)

    def page_at(self, now: float) -> pages.TextPage:
        """The page shown at ``now``.  A refusal stands until the next press or accepted command, or
        :data:`REFUSAL_STANDS_S`: it stood 4 s, so the reason for a template the camera saw laid against the rear
        edge in gear 3 was gone before its player looked up from the table, and the camera never sends that
        template again (a review, 2026-12-07)."""
        return self.pages[self.page_index(now)]

    def over(self, now: float) -> bool:
        return now - self.since >= max(REFUSAL_STANDS_S, 2 * REFUSAL_PAGE_S * len(self.pages))

    def read(self, now: float) -> bool:
        """Whether it has stood long enough to be read (:data:`NOTICE_S`): a press then only puts it away."""
        return now - self.since >= NOTICE_S


@dataclass(frozen=True)
class Applied:
    """One command the loop sent and what the rules said (the sim and the tests read these)."""

    source: str  # "button", "camera", "keyboard"
    command: Command
    outcome: Outcome
    #: whose step it was when it was sent (None: anybody's): the live page's list names them ("USA: roll: die 2")
    player: str | None = None


@dataclass(frozen=True)
class Turn:
    """The prompt, the menu and the views of the current state: computed once per change of the log."""

    key: int
    prompt: Prompt
    menu: Menu
    views: tuple[Any, ...]


def _as_now(menu: Menu, path: Sequence[str]) -> tuple[str, ...]:
    """``path`` with each label as ``menu`` has it now (its reading after the choice was taken: "Red Fury · hull
    6"); a label no longer there, without its reading."""
    out: list[str] = []
    choices: Sequence[Choice] = menu.choices
    for label in path:
        now = next((c for c in choices if choice_name(c.label) == choice_name(label)), None)
        out.append(now.label if now is not None else choice_name(label))
        choices = now.children if now is not None else ()
    return tuple(out)


class App:
    """The appliance's loop around one :class:`games.core.Match`.

    ``game_module`` is the game package (``games.gaslands``): its ``GAME`` decides and declares the menu,
    its ``DIE_TYPES`` gives the faces of dice typed by hand.  ``on_finished(over)`` is called when the
    game ends (``True``: the run command marks the game finished in the store) and when an undo takes it out of
    its end again (``False``: marked playing again; a restart resumed another game, an audit).
    """

    def __init__(
        self,
        game_module: Any,
        match: Match[Any],
        *,
        buttons: ButtonSource,
        displays: Displays,
        clock: Clock = time.monotonic,
        camera: Camera | None = None,
        reader: TableReader | None = None,
        render: Renderer | None = None,
        dice_region: Region | None = None,
        settle_frames: int = 3,
        long_back_undo_steps: int = 3,
        table_every: int = 5,
        on_finished: Callable[[bool], None] | None = None,
        log: Callable[[str], None] | None = None,
    ) -> None:
        #: the journal (``run``'s log): what the screens cannot say whole, such as why the camera was lost
        self.log = log or (lambda line: None)
        self.module = game_module
        self.game = game_module.GAME
        self.match = match
        self.buttons = buttons
        self.displays = displays
        self.clock = clock
        self.camera = camera
        self.reader = reader
        #: What is wrong with the camera's files (device.camera_input.VisionFileProblem), as the "files" notice
        #: says it: kept so that a file mended while the game runs (a face taught on the page) takes its part away.
        self.file_problems: list[Any] = []
        self.render = render or default_renderer()
        self.long_back_undo_steps = long_back_undo_steps
        self.on_finished = on_finished
        self.die_types: dict[str, Sequence[Any]] = dict(getattr(game_module, "DIE_TYPES", {}) or {})
        self.vision = (CameraInput(reader, die_types=self.die_types, dice_region=dice_region,
                                   settle_frames=settle_frames, table_every=table_every)
                       if reader is not None else None)
        self.notices: list[Notice] = []
        self._withdrawn: list[Notice] = []  # withdrawn during this step, in case they are posted again
        self.history: list[Applied] = []
        self.cursor: MenuCursor | None = None
        self.entry: DiceEntry | None = None
        self.refusal: Refusal | None = None
        self.legend: int | None = None  # the legend page shown, or None
        self.menu_shown = True
        # presses that only changed what the screens show (the menu brought back, a refusal put away): in the
        # press key, so that a phone's double tap does not act on a menu its page never showed
        self._looks = 0
        self.frames_drawn = 0
        self.iterations = 0
        self._over = bool(getattr(match.state, "finished", False))  # as the store was told last
        self._turn: Turn | None = None
        self._prompt_key: Any = None
        #: when the step last moved on by something other than a button (the camera, the phone's dice): a
        #: press that began before it was meant for the step before (:meth:`on_button`)
        self._moved_at = float("-inf")
        self._moved_by: str = ""
        #: whose press is being handled: "web" for a phone's (its page's buttons), "button" for the panel's; the
        #: commands it sends are recorded as from it (a phone review: the game log said "[button]" of a phone's
        #: presses and undos, and who pressed could not be told)
        self._press_source = "button"
        self._moved_from: str | None = None  # whose step it was (the press was most likely theirs)
        self._reopened = False
        self._memory: dict[Any, tuple[str, ...]] = {}  # prompt → the path taken there (kept for undo)
        self._taken: dict[int, tuple[str, ...]] = {}  # decision → the menu's title and path that took it (said when undone)
        #: decision → whose step it was taken at (:meth:`_whose`, from the state it was taken in; kept: the same
        #: decision never changes)
        self._chooser: dict[int, str | None] = {}
        #: (the newest decision, how many) a BACK was asked to press again for: taken at another player's step
        self._undo_asked: tuple[int, int] | None = None
        #: the game over: its last news, how long it stands each time it is told, and when it was last to end
        #: (FINAL_NEWS_AGAIN_S)
        self._final_news: tuple[str, float, float] | None = None
        self._last_taken: tuple[tuple[str, str | None], tuple[str, ...]] | None = None
        self._last_press = clock()
        self._dirty = True
        #: (alerts lit, the turn of a long label or dice line) last drawn: screens change with time on both beats
        self._ticks: tuple[bool, int, int | None] | None = None
        #: when each screen first showed a game alert turned in pieces, by (player, kind, text)
        self._alerts_since: dict[tuple[Any, str, str], float] = {}
        self._vehicle_names: dict[str, str] | None = None  # by id, for the commands' words (words_of)
        self._last_images: dict[str, bytes] = {}
        self._camera_changes_seen = 0
        self._screen_events_seen = 0
        #: The camera's last failure, as the backend worded it (the screens show a short notice).
        self.camera_message = ""
        #: when each of the game's own alerts was first shown on a player's screen (a long one turns in the
        #: footer a piece at a time from its first piece: timed from 0, "roll the Fire die for Large car"
        #: began with "car")
        self._alert_first: dict[tuple[str, str], float] = {}
        #: Called on the loop's thread after each redraw pass with ``{player: image}`` of the screens drawn
        #: (possibly none), and after each camera frame was handled: the web page's mirror reads here.
        self.redraw_listeners: list[Callable[[App, dict[str, Any]], None]] = []
        self.frame_listeners: list[Callable[[App, Frame], None]] = []
        self._sync()

    # -- the state, once per change ----------------------------------------------------------------
    def turn(self) -> Turn:
        key = len(self.match.records)
        if self._turn is None or self._turn.key != key:
            # the match's prompt and views: shown once already when the decision was checked before it was written
            self._turn = Turn(key, self.match.prompt(), self.game.menu(self.match.state), tuple(self.match.views()))
        return self._turn

    def prompt(self) -> Prompt:
        return self.turn().prompt

    def menu(self) -> Menu:
        return self.turn().menu

    @property
    def mismatches(self) -> list[Mismatch]:
        return list(self.vision.mismatches) if self.vision is not None else []

    # -- the loop ---------------------------------------------------------------------------------
    def step(self, now: float | None = None) -> list[Applied]:
        """One iteration: read inputs, act, redraw what changed.  Returns the commands sent."""
        now = self.clock() if now is None else now
        self.iterations += 1
        self._withdrawn = []
        before = len(self.history)
        for event in self.buttons.poll(now):
            self.on_button(event, now)
        if self.camera is not None:
            frame = self.camera.poll(now)
            self._camera_notices()
            if frame is not None:
                self.on_frame(frame, now)
        self._expire(now)
        self._final_news_again(now)
        self.redraw(now)
        retry = getattr(self.displays, "poll", None)
        if retry is not None:
            retry()  # screens that went away are retried with the bank's own backoff
        self._screen_notices()
        return self.history[before:]

    def run(self, *, max_iterations: int | None = None, idle_s: float = 0.01,
            stop: Callable[[], bool] | None = None) -> None:
        """Loop until ``stop()`` is true or ``max_iterations`` are done; idles on the buttons' queue."""
        n = 0
        while (max_iterations is None or n < max_iterations) and not (stop and stop()):
            self.step()
            n += 1
            self.buttons.wait(idle_s)

    # -- commands ---------------------------------------------------------------------------------
    def apply(self, command: Command, *, source: str = "button", now: float | None = None) -> Outcome:
        """Send one command through the rules and the store; a refusal is shown whole to its sender."""
        now = self.clock() if now is None else now
        if source == "button":
            source = self._press_source  # (a phone's press: "web")
        t = self.turn()
        sender = chooser_of(t.menu, t.prompt)  # whose step it was
        try:
            outcome = self.match.apply(command)
        except StoreError as exc:
            # Nothing was folded (the match folds only what the store returned): the game stays as it was,
            # the table is told, and the loop goes on so that the owner can see and fix the disk.
            # The screens get the few words (the sender's refusal, and every screen's notice until a step is
            # recorded again: four pages of paths were the sender's alone, for seconds); the journal the whole.
            outcome = Outcome(False, f"NOT RECORDED: {exc.short}", ())
            log.warning("not recorded: %s: %s", command.type, exc)
            self.notify("not_recorded", f"NOT RECORDED: {exc.short}", None, until=None, now=now)
        self.history.append(Applied(source, command, outcome, sender))
        key = self._prompt_key
        posted = False  # a news posted by this decision
        if outcome.accepted:
            self.refusal = None
            self.withdraw("not_recorded")  # recorded again
            # what the decision settled that everybody is told (a stage's points, an ability gained): the
            # games' views carry it as ``news``; shown on every screen long enough to be read whole
            news = next((str(v.news) for v in self.turn().views if getattr(v, "news", "")), "")
            if news and command.type != "undo":
                turns = self._news_turns(news)
                until = max(now + NEWS_S, turns_end(now, turns))
                self.notify("news", news, None, until=until, now=now)
                posted = True
                if getattr(self.match.state, "finished", False):
                    self._final_news = (news, until - now, until)
            elif command.type == "undo":
                self.withdraw("news")  # "Stage 1 won by ..." stood on over a stage no longer over
            else:
                self._news_outlived(now)
            if command.type == "undo" and self.vision is not None:
                self.vision.log_rewound(self.turn().views)
        if outcome.records:  # decided, or a refusal the rules record (Gaslands' touch-move)
            # "recorded: Cancel… › Cancel HAZARD" is stale once anything newer is: it hid the footer's gear
            # through three gear changes (a choice in a list posts its own again, App._take)
            self.withdraw("recorded")
            if command.type != "undo":
                # "UNDONE: … › End round › No pack" stood on after the round was ended again, its tail "pack" read
                # as what was just recorded: once the table decides again, the undo is history
                self.withdraw("undone")
                if not outcome.accepted:
                    self._news_outlived(now)
        if not outcome.accepted:
            text = outcome.reason or "refused"
            # in the rulebook's words where the rules say them: a template not permitted in the gear (its banner
            # says NOT PERMITTED) was paged under NOT ALLOWED (an audit, five players)
            title = ("NOT RECORDED" if text.startswith("NOT RECORDED") else
                     "NOT PERMITTED" if " is not permitted in gear " in text else "NOT ALLOWED")
            if text.startswith("NOT RECORDED: "):
                text = text[len("NOT RECORDED: "):]
            self.refusal = Refusal(self._refused_to(command, sender, t), tuple(pages.text_pages(title, text)), now)
        self._dirty = True
        self._sync()
        if posted and self.chooser() is None and self.turn().menu.choices:
            # a decision whose news every player is told, and the step after it anybody's: the menu would stand
            # on every screen, the news in footer pieces between its status (a Space Race success took 24 s to
            # read that way, and nobody saw their own box or VP while the turn went on: a walkthrough).  Every
            # screen shows its dashboard, the news whole in its notice box, until SELECT, OK or BACK brings the
            # menu back (NEXT acts, as on any dashboard).  (A game over has no menu to put away: a BACK there only
            # woke a menu that does not show, and a third press undid, a review.)
            self.menu_shown = False
        after = self.turn()
        if (outcome.accepted and command.type != "undo" and self.vision is not None and after.menu.template is not None
                and t.menu.template is None):
            self.vision.template_step_started(after.prompt.vehicle)  # a new activation: a new pick
        if source != "button" and self._prompt_key != key:
            self._moved_at, self._moved_by, self._moved_from = now, source, sender
        over = bool(getattr(self.match.state, "finished", False))
        if over != self._over:
            self._over = over
            if self.on_finished is not None:
                try:
                    self.on_finished(over)
                except StoreError as exc:
                    # the game's last events are recorded; only its "finished" mark is not (the next start
                    # resumes it at its end, or another game): the table is told, the loop goes on
                    said = "game over, not marked finished" if over else "undone, not marked playing again"
                    self.notify("store", f"{said}: {exc.short}", None, now=now)
                    log.warning("%s: %s", said, exc)
        return outcome

    @staticmethod
    def _refused_to(command: Command, sender: str | None, t: Turn) -> str | None:
        """Whose screen a refusal is shown on: the player a command names when it is sent for one at the table
        (a phone's command for Dee during Cy's turn was refused on Cy's screen, "it is Cy's turn, not Dee's", and
        Dee saw nothing: an audit), else whose step it was."""
        named = command.get("player")
        players = {getattr(v, "player", None) for v in t.views}
        return named if isinstance(named, str) and named in players else sender

    def _prompt_id(self, t: Turn) -> Any:
        return (self.match.undoable, json.dumps(t.prompt.to_json(), sort_keys=True, default=str))

    def _sync(self) -> None:
        """A new prompt: a fresh menu, its cursor on the game's default — or where this player was at this
        prompt before (after BACK/undo), or inside the same list when the step goes on (one more hazard
        token: OK again)."""
        t = self.turn()
        key = self._prompt_id(t)
        if key == self._prompt_key and self.cursor is not None and self.cursor.menu is t.menu:
            return
        just_taken = False  # the cursor goes back where a choice was just taken, in a list that stays open
        usual_before = self.cursor.menu.advance if self.cursor is not None else None
        # the choice the cursor was on, if it is one not taken twice running (the choice just taken, mostly)
        was_once = self.cursor is not None and bool(getattr(self.cursor.current, "once", False))
        if key == self._prompt_key and self.cursor is not None:
            path = self.cursor.path  # the same prompt, a new menu object: stay where the cursor was
        else:
            path = self._memory.get(key, ())
            if not path and self._last_taken is not None:
                where, taken = self._last_taken
                if where == (t.menu.title, t.menu.player) and len(taken) > 1:
                    path, just_taken = taken, True
        if key != self._prompt_key and any(n.kind == "info" for n in self.notices):
            # a hint about the step just left ("all 2 dice are in: NEXT sends them") is stale on the next one
            self.notices = [n for n in self.notices if n.kind != "info"]
        self._prompt_key = key
        self.cursor = MenuCursor(t.menu)
        if path and not self.cursor.follow(path) and self.cursor.trail:
            # the choice just taken left its list (a car wrecked by the hit, set on fire; a command used this
            # turn, with its dice below it): the list's first entry is another car or command, where one more OK
            # would record the same for it, or open another command.  Back to the branch; to the first-level one
            # for a choice not taken twice running: "Road scrolls… › Ben › Large car off" left the cursor in Ben's
            # list, where two more OKs scrolled the road again and eliminated Ben's small car (an audit)
            if was_once and len(path) > 2:
                self.cursor.follow(path[:1])
            else:
                self.cursor.back()
        elif just_taken and self.cursor.trail and self.cursor.current.once:
            # a choice that is not taken twice running (a collision: the line reads the same after it, and a second
            # OK crashed the two cars again): back to its first-level branch, closed, where OK opens the list again;
            # or on what it opened, when it made a new usual way on (a crash's smash attacks, first on the menu
            # but out of sight below the cursor left on "Collision")
            usual = t.menu.advance
            self.cursor.follow(usual if usual and usual != usual_before else path[:1])
        # A list the loop reopened by itself: NEXT is still the step's usual way on until the player moves.
        self._reopened = bool(self.cursor.trail)
        self.entry = None
        self.menu_shown = True
        self._last_press = self.clock()  # a new step shows its menu for a while, pressed or not
        if self.vision is not None:
            self.vision.new_prompt()
            self._post_counts(self.clock())  # the hazard counts' hint is the new chooser's
            if t.menu.template is None:  # no template awaited: "car not seen" is over at once
                self.vision.withdraw_unseen(self.withdraw)
        self._dirty = True

    def _news_turns(self, news: str) -> int:
        """How many turns a news takes to be shown whole where it takes most: a dashboard (a piece a turn) or the
        menu page's footer, where the chooser's own line takes its turns first (:meth:`page_for`).  With nothing
        left to choose (the game over) no menu page is shown: the dashboards' pieces (the Grand Tour's end was
        counted in the footer's 18 pieces and covered WINNER and the points for a minute, an audit)."""
        from device.dashboards import news_pieces

        on_dashboards = len(news_pieces(self.game.name, news))
        menu = self.turn().menu
        if not menu.choices:
            return on_dashboards
        return max(self._status_pieces(menu) + len(pages.footer_pieces(news)), on_dashboards)

    @staticmethod
    def _status_pieces(menu: Menu) -> int:
        """The pieces the menu page's footer shows ``menu``'s status line in (a dice page's own line is one)."""
        return len(pages.footer_pieces(menu.status))

    def _final_news_again(self, now: float) -> None:
        """The game over, its last news told again once the dashboards have stood :data:`FINAL_NEWS_AGAIN_S`
        without it (withdrawn when the game is no longer over: an undo)."""
        if self._final_news is None:
            return
        if not getattr(self.match.state, "finished", False):
            self._final_news = None
            return
        news, lasts, ended = self._final_news
        if now >= ended + FINAL_NEWS_AGAIN_S and not any(n.kind == "news" for n in self.notices):
            self.notify("news", news, None, until=now + lasts, now=now)
            self._final_news = (news, lasts, now + lasts)

    def _news_outlived(self, now: float) -> None:
        """A later decision with no news of its own: the news is what an earlier one settled (Space Race: "…
        gains: two Space Race attempts" stood 12 s over the next box reached and the next roll), and goes once
        every piece of it was shown (a vehicle eliminated by the scroll was told for the one press to "Moved 4")."""
        for n in [n for n in self.notices if n.kind == "news"]:
            # (the chooser reads it on the menu page's footer, in more pieces than the dashboards': a review saw
            # "Ben's small car, Cy's" and never "eliminated")
            # (after the chooser's own line there)
            shown = max(n.since + NOTICE_S, turns_end(n.since, self._news_turns(n.text)))
            if now >= shown:
                self.withdraw("news")
            elif n.until is None or n.until > shown:
                self.notices = [dataclasses.replace(m, until=shown) if m is n else m for m in self.notices]
                self._dirty = True

    def _take(self, command: Command, path: tuple[str, ...], now: float, *, dice: str = "",
              source: str = "button") -> Outcome:
        """Send a command chosen in the menu, remembering where it was chosen (BACK comes back there).
        ``dice``: the faces entered for it, said with the path when it is undone."""
        t = self.turn()
        self._memory[self._prompt_id(t)] = path
        self._last_taken = ((t.menu.title, t.menu.player), path)
        chooser = self.chooser()
        outcome = self.apply(command, source=source, now=now)
        if outcome.records:  # (a refusal the rules record, too: Gaslands' touch-move pick of a barred template)
            # said when undone: the menu's title names whose step it was ("red Rouleur › 21 to 25 cards › 25",
            # not "21 to 25 cards › 25"), and a roll its dice ("Roll the die: 2")
            who = t.menu.player
            named = choice_name(t.menu.title)  # a title's reading is for the page ("Roll d6 · no event")
            if who and named.startswith("Your "):  # the chooser's page: to the table it is "Dee's turn" (an audit:
                title = f"{who}'s {named[5:]}"  # "UNDONE Dee: Your turn › …" on every screen read as the reader's)
            else:
                title = f"{who}: {named}" if who and who not in named else named
            # the whole path: its last two words alone lost whose vehicle it was and what was done ("Medium car ›
            # Ended on it" was Cy's, met by Ana's move; "Dee › Medium car" was a scroll taking two off); a long
            # notice turns in pieces on the screens
            # A reading is what the choice was before it ("Red Fury · hull 7"): said when undone later it read as
            # the car's hull (5 by then). Without it.
            bare = tuple(choice_name(p) for p in path)
            self._taken[outcome.records[0].decision] = (
                title, *bare[:-1], bare[-1] + (f": {dice}" if dice else "")) if bare else (title,)
        after = self.turn()
        # (not when the menu is another: the Grand Tour's squares list went back to the riders, whose status said
        # "red Sprinteur +5 (1 in)", and "recorded: 5+… › 5", without the rider, stood over it; the next rider's
        # exhaustion count has the same lists under another title, red Sprinteur's after red Rouleur's)
        stays = (after.menu.title, after.menu.player) == (t.menu.title, t.menu.player) and bool(
            {choice_name(c.label) for c in after.menu.choices} & {choice_name(c.label) for c in t.menu.choices})
        if (outcome.accepted and len(path) > 1 and after.prompt.step == t.prompt.step and self.chooser() == chooser
                and stays):
            # the step goes on and the menu stays (a damage token, a hit, a fire): nothing else on this screen
            # says the press was taken, and one more OK would record it again
            # with the dice entered for it ("Road die… › Big Rig: 2": the face was on no screen)
            # (a reading as the line reads now: "Hit › Red Fury · hull 6", not the hull before the hit)
            shown = _as_now(after.menu, path)
            if dice:  # the dice say it ("Small car: 2", not "Small car · rolled 2: 2")
                shown = (*shown[:-1], choice_name(shown[-1]))
            self.notify("recorded", "recorded: " + " › ".join(shown) + (f": {dice}" if dice else ""), chooser, now=now)
        return outcome

    def words_of(self, applied: Applied) -> str:
        """A command the loop sent, as a person reads it: a choice taken in the menu in the menu's words, as the
        screens said it ("Ana: Move a vehicle… › Small car › Die 3"); any other (the camera's, the phone's, a
        refusal) in its type and values, after whose step it was when the command names nobody ("Alice: skid roll:
        faces [HAZARD, SLIDE]", "USA: roll: die 2")."""
        from device.web.timeline import command_words, vehicle_names

        records = applied.outcome.records
        if applied.outcome.accepted and records and records[0].decision in self._taken:
            return " › ".join(self._taken[records[0].decision])
        if self._vehicle_names is None:  # the vehicles' names, from the events that set the game up
            self._vehicle_names = vehicle_names([r for r in self.match.records if r.decision == 0], self.game)
        return command_words(applied.command, applied.player, self._vehicle_names)

    def decision_words(self, targets: Sequence[tuple[int, Sequence[Any]]]) -> list[str]:
        """Decisions to undo (``Match.undo_targets``), each as "UNDONE: …" on the screens and the phone's "Undo
        …?" both say it: a choice taken in the menu as the player took it ("Ana: Move a vehicle… › Small car ›
        Die 3"); any other (the camera's, the phone's, one made before a restart) in the log's words."""
        from device.web.timeline import describe, vehicle_names

        names: dict[str, str] | None = None
        out = []
        # what the decision brought about besides ("(and stage 2's start)"), where the game says it
        also: Callable[[Any], str | None] = getattr(self.game, "undone_with", lambda event: None)
        for decision, events in targets:
            if decision in self._taken:
                words = " › ".join(self._taken[decision])
            elif events:
                names = vehicle_names(self.match.records, self.game) if names is None else names
                # a list's brackets are for the log: on a screen, in pieces, one read "HAZARD]" (an audit)
                words = describe(events[0], names, self.game, screen=True)
            else:
                continue
            extra = [w for w in map(also, events[1:]) if w]
            out.append(words + (f" (and {', '.join(extra)})" if extra else ""))
        return out

    # -- buttons ----------------------------------------------------------------------------------
    def plan(self, path: Sequence[str]) -> list[str] | None:
        """The presses from the cursor as it is now to the choice at ``path`` and taking it
        (:func:`device.menus.plan`): what the demo, the benchmark and the tests press."""
        if self.cursor is None:
            return None
        keys = plan(self.cursor, path, reopened=self._reopened)
        if keys and not self.menu_shown and keys[0].removesuffix("_long") in WAKE_BUTTONS:
            # the dashboard is showing: the first SELECT only brings the menu back (a held SELECT too: a plan that
            # began with one landed a level off, and recorded another car's damage: an audit)
            keys = ["select", *keys]
        return keys

    def press_key(self) -> str:
        """What an OK, BACK or NEXT acts on now, as a short key: the game's log, the step, the menu's open lists, a
        roll being entered, the legend open.  A phone's press carries the key its page showed
        (:attr:`ButtonEvent.seen`) and is not taken once it has changed (an audit: a double tap on the phone's NEXT,
        and two phones' NEXT at once, each recorded a second decision: "Moved" then "Attacks done", the attack
        step skipped).  In it too: each press that only brought the menu back or put a refusal away (the phone's
        OK after a news woke the menu, and a double tap's second, sent before the page showed that menu, chose on
        it).  Not in it (a review): the cursor within a list (the phone's own SELECT moved it, and its OK was
        refused before the page heard of the move), the menu's return to the dashboard after a while and a
        refusal's pages turning (timers: a NEXT that would act the same was refused)."""
        import hashlib

        c = self.cursor
        menu = None if c is None or c.empty else tuple(c.trail)
        e = self.entry
        entry = None if e is None else (e.request.label, tuple(map(str, e.entered)))
        raw = repr((id(self.match), len(self.match.records), self.prompt().text, menu, entry, self.legend is not None,
                    self._looks))
        return hashlib.sha1(raw.encode()).hexdigest()[:12]

    def _over_the_menu(self, refused: Refusal) -> bool:
        """Whether ``refused`` stood over the menu a press acts on: drawn on the chooser's screen, at a step that is
        anybody's, or the chooser's menu on every screen (theirs dark, or none).  A
        touch-move's NOT PERMITTED on its owner's screen took the picker's first SELECT, at his own menu, to put it
        away: SELECT, OK, OK meant for Gentle › Left recorded Short Straight (a screens walkthrough)."""
        chooser, dark = self.chooser(), self._dark_screens()
        return chooser is None or chooser in dark or self._refusal_drawn_for(refused, chooser, dark)

    def _refusal_drawn_for(self, refused: Refusal, player: str | None, dark: set[str]) -> bool:
        """Whether ``refused`` is drawn on ``player``'s screen (:meth:`page_for`): theirs, or everybody's, or every
        screen's when its own player's is dark or missing."""
        return refused.player in (None, player) or refused.player in dark or self._screenless(refused.player)

    def chooser(self) -> str | None:
        """Who chooses now (None: anybody)."""
        t = self.turn()
        return chooser_of(t.menu, t.prompt)

    def on_button(self, event: ButtonEvent, now: float) -> None:
        self._press_source = event.source
        try:
            self._on_button(event, now)
        finally:
            self._press_source = "button"

    def _on_button(self, event: ButtonEvent, now: float) -> None:
        self._dirty = True
        name, long = event.button, event.long
        if event.began is not None and event.began < self._moved_at:
            # the finger went down on the step before: the camera (or the phone) moved the game on meanwhile,
            # and the press would act on a step its player never saw (OK placing a template, NEXT ending SHIFTs)
            who = {"camera": "the camera", "web": "the phone"}.get(self._moved_by, "a roll typed")
            # a page of its own on that player's screen, as a refusal is (a notice queued behind "camera: 3 5 1 6"
            # on a dashboard was gone before its turn came)
            text = f"{who} moved the game on while the button was down; look, then press again"
            self.refusal = Refusal(self._moved_from, tuple(pages.text_pages("PRESS NOT TAKEN", text)), now)
            return
        if event.seen is not None and event.seen != self.press_key():
            # a phone's press aimed at what its page showed, and the screen changed before it arrived: a double tap's
            # second, or another phone's press first; said on the chooser's screen, mirrored on the phones
            text = "the screen changed before the phone's press arrived; look, then press again"
            self.refusal = Refusal(self.chooser(), tuple(pages.text_pages("PRESS NOT TAKEN", text)), now)
            return
        self._last_press = now
        refused, self.refusal = self.refusal, None  # read, or passed over: the next press clears it
        if refused is not None and refused.read(now) and self._over_the_menu(refused):
            # a reason that stood long enough to be read hid the menu: the press that puts it away is not also the
            # hidden choice's ("Moved" taken by the OK that only meant "seen"; a review); the menu comes back
            self.menu_shown = True
            self._looks += 1
            return
        asked, self._undo_asked = self._undo_asked, None  # "BACK again to undo …" holds for the next press only
        if asked is not None:  # and its words go with it: standing on, they asked for a BACK that only asked again
            self._withdraw_info(ASK_AGAIN, "hold " + ASK_AGAIN)
        if self.legend is not None:
            if name == "select":
                self.legend = max(0, self.legend + (-1 if long else 1))
                if self.legend >= len(self.legend_pages()):
                    self.legend = None
            else:
                self.legend = None
            return
        if name == "next" and long:
            self.legend = 0
            return
        if name == "back" and long:
            # (the dice entry closes with an undo, not with its question: the dice entered stay for a press elsewhere)
            if self._back_undo(self.long_back_undo_steps, now, one_player=True, asked=asked, sure=event.asked):
                self.entry = None
            return
        if name == "ok" and long and self.entry is None:
            self.accept_table_hazards(now)
            return
        if name.startswith("p") and name[1:].isdigit():
            self._player_button(int(name[1:]), now)
            return
        if self.entry is not None:
            self._entry_button(name, long, now)
            return
        if not self.menu_shown and name in WAKE_BUTTONS:
            self.menu_shown = True  # the dashboard was showing: this press only brings the menu back
            self._looks += 1
            return
        self.menu_shown = True
        if name != "next":
            self._reopened = False  # the player moved: NEXT now means the highlighted choice
        if name == "next":
            self.advance(now)
        elif name == "back":
            if self.cursor is None or not self.cursor.back():
                self._back_undo(1, now, asked=asked, sure=event.asked)
        elif name == "select":
            if self.cursor is not None and not self.cursor.empty:
                self.cursor.select(back=long)
            else:
                self.notify("info", "nothing to choose now", self.chooser(), now=now)
        elif name == "ok":
            self.ok(now)

    def ok(self, now: float) -> None:
        cursor = self.cursor
        if cursor is None or cursor.empty:
            self.notify("info", f"nothing to choose: {self.prompt().text}", self.chooser(), now=now)
            return
        path = cursor.path
        choice = cursor.ok()
        if choice is not None:
            self._choose(choice, path, now)

    def _choose(self, choice: Choice, path: tuple[str, ...], now: float) -> None:
        if choice.dice is not None:
            # dice lying still with one the camera cannot read: the roll typed starts from those it reads (the
            # roller was told "camera: 3 ? 3 2 - ... or use the buttons", and the buttons began at "no dice yet")
            read = self.vision.read_beside_unreadable(choice.dice) if self.vision is not None else ()
            self.open_entry(choice.dice, trail=path, entered=read)
        elif choice.command is not None:
            self._take(choice.command, path, now)

    def advance(self, now: float) -> None:
        """NEXT: take a choice and each list's default below it — at the top level the step's usual way on
        as the game names it (``Menu.advance``: "Moved", "Template placed"; wherever the cursor is), in an
        open list the highlighted choice.  Where the step is a decision (which template?) NEXT says so."""
        cursor = self.cursor
        if cursor is None or cursor.empty:
            self.notify("info", f"nothing to do: {self.prompt().text}", self.chooser(), now=now)
            return
        if not cursor.trail or self._reopened:
            menu = cursor.menu
            if not menu.advance:
                self.notify("info", "Choose: SELECT, then OK", self.chooser(), now=now)
                return
            cursor = MenuCursor(menu)
            if not cursor.follow(menu.advance):
                return
            self.cursor = cursor
        path = cursor.path
        choice = cursor.ok()
        while choice is None:  # a list opened: its default
            path = cursor.path
            choice = cursor.ok()
        self._choose(choice, path, now)

    def _player_button(self, seat: int, now: float) -> None:
        players = [getattr(v, "player", None) for v in self.turn().views]
        if seat > len(players):
            return
        player = players[seat - 1]
        chooser = self.chooser()
        if chooser is not None and player != chooser:
            self.notify("info", f"{chooser} is choosing now, not {player}", player, now=now)
            return
        if self.entry is not None:
            self._entry_button("ok", False, now)
        else:
            self.menu_shown = True
            self.ok(now)

    def _entry_button(self, name: str, long: bool, now: float) -> None:
        entry = self.entry
        assert entry is not None
        if name == "select":
            entry.select(back=long)
        elif name == "ok":
            if entry.keep():
                self._entry_counts_outdated(entry)  # "0 of 1 entered" stood on over "1/1" (an audit)
            else:
                self.notify("info", f"all {entry.request.count} dice are in: NEXT sends them", self.chooser(), now=now)
        elif name == "back":
            if not entry.remove():
                self.entry = None
            # "…: 2 of 4 entered" counted the die just taken back, until it timed out; "all 4 dice are in" stood
            # over "3/4" the same way
            self._entry_counts_outdated(entry)
        elif name == "next":
            self.finish_entry(now)

    def _entry_counts_outdated(self, entry: DiceEntry) -> None:
        """The dice entered changed: the notices that counted them ("OK keeps 2 more dice", "all 4 dice are in",
        "NEXT again: send 2 of 3 …", "…: no dice entered") no longer do; a count other than the usual one is asked
        about again."""
        entry.unusual_asked = None
        self._withdraw_info(f"{entry.request.label}: ", f"all {entry.request.count} dice are in: ", "NEXT again: send ",
                            "OK keeps ")

    def _withdraw_info(self, *heads: str) -> None:
        """The answers to a press ("info" notices) that begin with any of ``heads``: no longer true."""
        said = [n for n in self.notices if n.kind == "info" and n.text.startswith(heads)]
        if said:
            self.notices = [n for n in self.notices if n not in said]
            self._dirty = True

    def undo_plan(self, steps: int, *, one_player: bool = False) -> list[tuple[int, list[Any]]]:
        """The decisions an undo of ``steps`` retires, the newest first (``Match.undo_targets``).  ``one_player``
        (a held BACK): no further back than those taken at the same player's step as the newest: held at the
        start of Alice's step it undid her refused pick and two of Eve's moves (an audit, five players).  One taken
        at anybody's step (a Space Race turn begun) goes with the player's either side of it."""
        targets = self.match.undo_targets(min(steps, self.match.undoable) or 1)
        if one_player and targets:
            whose = self._whose(targets[0][0])
            same = 1
            for decision, _ in targets[1:]:
                other = self._whose(decision)
                if other == "?" or other is not None and whose is not None and other != whose:
                    break
                whose = whose if other is None else other
                same += 1
            targets = targets[:same]
        return targets

    def _back_undo(self, steps: int, now: float, *, one_player: bool = False, asked: tuple[int, int] | None,
                   sure: bool) -> bool:
        """BACK at the top: undo (:meth:`undo`), but a decision taken at another player's step only at a second
        BACK: on Ana's fresh "Your turn" menu one BACK undid Dee's move, which was never on her screen (an
        audit); and any once the game is over.  The first says what a second would undo, on the chooser's screen
        (every screen, when nobody's step it is).  ``sure``: the phone's BACK whose page asked already (naming each
        decision; ``ButtonEvent.asked``).  Returns whether it undid (False: it asked)."""
        targets = self.undo_plan(steps, one_player=one_player)
        here = self.chooser()
        # any of them another player's; one taken at anybody's step is not.  At anybody's step (nobody is the
        # chooser) a player's is another's too: at a Grand Tour stage's first "Who crossed the line" one BACK undid
        # white's exhaustion count and the stage's start, asking nothing (a walkthrough)
        whose = {self._whose(decision) for decision, _ in targets} - {None, here}
        # over, the game's result goes with it: at "Tour over" a BACK that only woke an empty menu and a second one
        # undid the last round and the tour's winner (an audit)
        over = bool(targets) and bool(getattr(self.match.state, "finished", False))
        if not sure and (whose or over):
            ask = (targets[0][0], len(targets))
            if asked != ask:
                self._undo_asked = ask
                # a chooser with no screen reads their menu on every screen: the question with it
                to = None if here is None or here in self._dark_screens() else here
                words = "; ".join(self.decision_words(targets))
                self.notify("info", f"{'hold ' if one_player else ''}{ASK_AGAIN}{words}", to, now=now)
                return False
        self._undo_targets(targets, now)
        return True

    def _whose(self, decision: int) -> str | None:
        """Whose step a live decision was taken at (None: anybody's; "?": not a live decision): read from the state
        it was taken in (``Match.state_before``), so that one taken before a restart is known as well (recorded
        only as they were sent, after a restart every BACK asked twice)."""
        if decision not in self._chooser:
            before = self.match.state_before(decision)
            if before is None:
                return "?"
            self._chooser[decision] = chooser_of(self.game.menu(before), self.game.prompt(before))
        return self._chooser[decision]

    def undo(self, steps: int, now: float, *, one_player: bool = False) -> None:
        """BACK at the top (long BACK: several, :meth:`undo_plan`): the last decisions are undone, and every screen
        says which ("UNDONE: Attack… › Widowmaker"); a "recorded" notice of what was undone goes with it."""
        self._undo_targets(self.undo_plan(steps, one_player=one_player), now)

    def _undo_targets(self, targets: list[tuple[int, list[Any]]], now: float) -> None:
        """Undo ``targets`` (:meth:`undo_plan`; none: an undo the rules refuse, "nothing to undo")."""
        outcome = self.apply(Command("undo", {"steps": len(targets) or 1}), now=now)
        if not outcome.accepted or not targets:
            return  # (an accepted undo withdrew the "recorded" notice of what it undid: App.apply)
        words = "; ".join(self.decision_words(targets))
        self.notify("undone", f"UNDONE: {words}", None, now=now)
        if outcome.records:  # the phone's list says it as the screens did, not "undo: steps 1"
            self._taken[outcome.records[0].decision] = (f"UNDONE: {words}",)

    # -- dice -------------------------------------------------------------------------------------
    def open_entry(self, request: DiceRequest, *, trail: tuple[str, ...] = (), kept: tuple[str, ...] = (),
                   entered: Sequence[Any] = ()) -> None:
        """The dice entry for ``request``; ``entered``: dice already known (the camera's), kept when each is a
        face the entry offers and there is room for one more."""
        faces = faces_of(request, self.die_types)
        start = list(entered) if all(f in faces for f in entered) and len(entered) < request.count else []
        self.entry = DiceEntry(request, faces, trail=trail, kept=kept, entered=start)
        self._dirty = True

    def finish_entry(self, now: float, *, source: str = "button") -> None:
        """NEXT in a dice entry (or the camera's roll filling it, ``source`` "camera"): send the roll, or open the
        next roll it asks (the target's evade dice), or say what is missing."""
        entry = self.entry
        if entry is None:
            return
        if not entry.ready:
            # what to do, in one piece of the footer (the page's title counts them: "2/4"): "4 movement dice: 2 of 4
            # entered" came in two pieces, read neither at a glance nor as what to press (a screens walkthrough)
            left = entry.request.count - len(entry.entered)
            self.notify("info", f"OK keeps {left} more {'die' if left == 1 else 'dice'}", self.chooser(), now=now)
            return
        result = entry.request.command(list(entry.entered))
        if result is None and not entry.entered:
            # an attack's dice sent with none entered: the entry closed on "these dice make no command: <the
            # step's prompt>", which named neither the dice nor what to do; it stays open and says so
            self.notify("info", f"{entry.request.label}: no dice entered; OK keeps a die, BACK leaves",
                        self.chooser(), now=now)
            return
        n, got = entry.request.usual, len(entry.entered)
        if n is not None and got != n and entry.unusual_asked != got:
            # a NEXT pressed at 2 of 3 evade dice sent 2 (an audit), and a fourth of a T-bone's 3 smash dice was
            # taken without a word (a walkthrough); another count stays possible, asked for once
            entry.unusual_asked = got
            # the instruction first: at the end of the notice it came in a later piece than "2 of 3 entered" (an audit)
            name = roll_name(entry.request)
            self.notify("info", f"NEXT again: send {got} of {n} {name}" if got < n else
                        f"NEXT again: send {got} {name}, not the usual {n}", self.chooser(), now=now)
            return
        self.entry = None
        if isinstance(result, DiceRequest):  # a second roll (the target's evade dice, the direction die)
            # the first roll's hints ("all 1 dice are in: NEXT sends them") stood over the direction die's "0/1" for
            # their whole time (an audit): the prompt is the same, so the step's change did not take them away
            self._entry_counts_outdated(entry)
            faces = " ".join(str(entry.request.name_of(f)) for f in entry.entered) or "none"
            self.open_entry(result, trail=entry.trail,
                            kept=(*entry.kept, f"{entry.request.dice_name.removeprefix('the ')} {faces}"))
        elif isinstance(result, Command):
            path = entry.trail
            dice = " · ".join((*entry.kept, " ".join(str(entry.request.name_of(f)) for f in entry.entered) or "none"))
            outcome = (self._take(result, path, now, dice=dice, source=source) if path
                       else self.apply(result, source=source, now=now))
            self._rolled_by_hand(outcome)
        else:
            self.notify("info", f"these dice make no command: {self.prompt().text}", self.chooser(), now=now)

    def _rolled_by_hand(self, outcome: Outcome) -> None:
        """A roll entered by hand was recorded: the dice lying in the tray are its, not the next roll's."""
        if outcome.accepted and self.vision is not None:
            self.vision.roll_entered(self.withdraw)

    def awaited_roll(self) -> DiceRequest | None:
        """The roll awaited now: the one being entered (a roll a menu choice opened), else the step's."""
        return self.entry.request if self.entry is not None else self.menu().dice

    def type_faces(self, faces: Sequence[Any], now: float | None = None, *, source: str = "keyboard") -> Outcome | None:
        """Send a whole roll at once (the simulator's typed digits, the phone's pad): the roll awaited."""
        request = self.awaited_roll()
        self.withdraw("typing")  # sent: the dice typed so far are no longer being typed
        if request is None:
            self.notify("info", "no dice are awaited now", self.chooser(), now=now)
            return None
        opened, self.entry = self.entry, None
        result = request.command(list(faces))
        if isinstance(result, DiceRequest):
            # the second roll keeps the first's place in the menu and says its dice, as on the buttons (a bump's
            # direction die typed after a re-roll was titled with the roll it replaced, "bump die bump3 · direction 4")
            said = " ".join(str(request.name_of(f)) for f in faces) or "none"
            self.open_entry(result, trail=opened.trail if opened is not None else (),
                            kept=(*(opened.kept if opened is not None else ()),
                                  f"{request.dice_name.removeprefix('the ')} {said}"))
            return None
        if result is None:
            self.notify("info", f"{request.label}: {len(faces)} dice make no roll", self.chooser(), now=now)
            return None
        outcome = self.apply(result, source=source, now=now)
        self._rolled_by_hand(outcome)
        return outcome

    def show_typing(self, faces: Sequence[Any], *, who: str, now: float | None = None) -> None:
        """The dice typed so far for the awaited roll (the phone's pad, the simulator's digits), before they
        are sent: on the roller's screen, so the table sees each die as it is entered.  No dice typed (the
        last taken back, the roll sent): the line goes."""
        request = self.awaited_roll()
        if request is None or not faces:
            self.withdraw("typing")  # its own kind: the camera's dice notices and other players' are not touched
            return
        n = len(faces)
        room = f"{n} of {request.count}" if request.exact else f"{n}, at most {request.count}"
        typed = " ".join(str(request.name_of(f)) for f in faces)
        # the dice first: "keyboard typing:" filled the footer's first piece, the dice hidden for seconds (an audit)
        self.notify("typing", f"{typed} ({room}) typed on the {who}", self.prompt().player, now=now)

    # -- screens ----------------------------------------------------------------------------------
    def _dark_screens(self) -> set[str]:
        """The players whose screen does not answer (unplugged, or missing since the start), and the chooser
        when they have no screen at all."""
        status = getattr(self.displays, "status", None)
        if status is None:
            return set()
        screens = status()
        dark = {p for p, s in screens.items() if getattr(s.state, "value", s.state) == "down"}
        chooser = self.chooser()
        if chooser is not None and chooser not in screens:
            dark.add(chooser)  # no [[screens]] for this player at all (:meth:`_screenless`, from the same status)
        return dark

    def _screenless(self, player: str | None) -> bool:
        """Whether ``player`` has no screen at all (no ``[[screens]]`` for them)."""
        status = getattr(self.displays, "status", None)
        return player is not None and status is not None and player not in status()

    def _screen_notices(self) -> None:
        """A screen that does not answer (at the start, or unplugged mid-game) is told on every screen until
        it answers again: its player's menu is drawn nowhere meanwhile, and the journal is not at the table."""
        events = getattr(self.displays, "events", None)
        if events is None or len(events) == self._screen_events_seen:
            return
        self._screen_events_seen = len(events)
        down = [p for p, s in self.displays.status().items()  # type: ignore[attr-defined]
                if getattr(s.state, "value", s.state) == "down"]
        if not down:
            self.withdraw("screen")
            return
        whose = ", ".join(down)
        text = (f"{whose}'s screen is off: check its wires" if len(down) == 1
                else f"screens off: {whose}; check their wires")
        self.notify("screen", text, None, until=None)

    # -- camera -----------------------------------------------------------------------------------
    def _camera_notices(self) -> None:
        assert self.camera is not None
        changes = self.camera.changes[self._camera_changes_seen:]
        self._camera_changes_seen = len(self.camera.changes)
        for t, status, message in changes:
            self._dirty = True
            if status is CameraStatus.DOWN:
                self.withdraw("camera_back")
                self.withdraw("hazard_mismatch")  # stale once the camera is gone
                if self.vision is not None:
                    self.vision.withdraw_unseen(self.withdraw)
                    self.vision.camera_down()
                self.notify("camera_down", "CAMERA OFF: enter dice with the buttons", None, until=None, now=t)
                self.camera_message = message
                self.log(f"camera lost: {message}; dice are entered with the buttons until it is back "
                         "(it is tried again by itself)")
            else:
                had = self.withdraw("camera_down")
                if had:
                    self.notify("camera_back", "camera back", None, now=t)
                    self.log("camera back")

    def on_frame(self, frame: Frame, now: float) -> None:
        if self.vision is None:
            return
        t = self.turn()
        entry = self.entry
        fill = None
        if entry is not None and not entry.entered and entry.request != t.menu.dice:
            # a roll a menu choice opened (attack, smash, evade dice), nothing entered by hand yet: the camera's
            # only way to it (the step's own roll it reads with no entry open; opened, it is being typed)

            def fill(values: list[Any]) -> None:
                entry.entered = list(values)
                self._dirty = True
                self.finish_entry(now, source="camera")

        self.vision.on_frame(frame, t.prompt, t.menu, typing=entry is not None, views=t.views,
                             apply=self.apply, notify=self.notify, withdraw=self.withdraw, now=now,
                             entry=entry.request if entry is not None else None, fill=fill)
        for listener in self.frame_listeners:
            listener(self, frame)

    def accept_table_hazards(self, now: float) -> None:
        """Long OK: the table's extra hazard tokens become the game's commands — a person asked for it,
        after seeing the notice."""
        menu = self.menu()
        if self.vision is None or not self.vision.mismatches:
            self.notify("info", "no extra hazard tokens to add", self.chooser(), now=now)
            return
        chooser = self.chooser()
        commands = self.vision.extra_hazards(menu, self.turn().views, chooser)
        if menu.hazards is None:
            self.notify("info", "hazard tokens are added during an activation", chooser, now=now)
            return
        if not commands:
            extra = [m for m in self.vision.mismatches if m.extra]
            shared = [m for m in extra if m.vehicle is None and m.player in (None, chooser)]
            others = [m for m in extra if m.player not in (None, chooser)]
            if shared:  # a seat's zone holds the tokens of several vehicles: which one's, the camera cannot say
                self.notify("info", f"{shared[0].name}'s tokens are for several vehicles: enter them with the menu, "
                                    "vehicle by vehicle", chooser, now=now)
            elif others:
                self.notify("info", f"{others[0].name}'s extra tokens are {others[0].player}'s to add, at their step",
                            chooser, now=now)
            else:
                self.notify("info", "no extra hazard tokens to add", chooser, now=now)
            return
        for command in commands:
            self.apply(command, now=now)
        self.vision.mismatches = []  # until the next reading; the zones not counted still say so
        self._post_counts(now)

    def _post_counts(self, now: float) -> None:
        """The camera's hazard counts on their players' screens, the "(hold OK)" hint for the chooser of the
        step now, at a step that takes tokens."""
        assert self.vision is not None
        t = self.turn()
        self.vision.post_mismatches(self.notify, self.withdraw, now, takes=t.menu.hazards is not None,
                                    chooser=chooser_of(t.menu, t.prompt))

    # -- notices and screens ----------------------------------------------------------------------
    def follow_camera_of(self, old: "App") -> None:
        """Take over the camera from ``old``, the loop of the game this one replaces (a game begun from the
        page): its changes so far were told by it, and only what is still so (the camera off) is carried."""
        self._camera_changes_seen = old._camera_changes_seen
        self.notices.extend(n for n in old.notices if n.kind == "camera_down")

    def notify(self, kind: str, text: str, player: str | None, *, until: float | None | str = "auto",
               now: float | None = None) -> None:
        now = self.clock() if now is None else now
        # long enough to be read whole, where a menu page's footer shows it a piece at a time
        end = max(now + NOTICE_S, turns_end(now, len(pages.footer_pieces(text)))) if until == "auto" else until
        since = now
        if until is None:
            # a standing notice posted again in the same words (the camera's hazard counts, at every read of the
            # table, withdrawn and posted whole) keeps its start: else its footer pieces began again at each read
            # and only the first was ever seen ("Car: 2 hazard tokens", never "seen, log 0 (hold OK)")
            same = [n.since for n in (*self.notices, *self._withdrawn)
                    if (n.kind, n.player, n.text) == (kind, player, text) and n.until is None]
            since = same[0] if same else now
        elif kind != "news":  # (a decision's news is its own, even in the words of the one before)
            # so does a timed one posted again while it shows (the camera's "5 dice on the tray, 4 wanted: take 1
            # off" at every frame): its footer stayed on its first piece, "5 dice on the tray, 4", for as long as
            # the dice lay there; it now stands as long as it is posted, and its pieces turn.  It keeps its place
            # too (moved last at every frame, it hid each later notice where a dashboard shows the newest: a
            # review) and redraws nothing (the screens were drawn again at every frame)
            for k, n in enumerate(self.notices):
                if (n.kind, n.player, n.text) == (kind, player, text) and n.until is not None and n.until > now:
                    self.notices[k] = dataclasses.replace(n, until=max(n.until, end))  # type: ignore[type-var]
                    return
        if kind not in ("hazard_mismatch",):
            self.notices = [n for n in self.notices if not (n.kind == kind and n.player == player)]
        self.notices.append(Notice(kind, text, player, end, since))  # type: ignore[arg-type]
        self._dirty = True

    def show_file_problems(self, problems: Sequence[Any]) -> None:
        """The standing "files" notice for ``problems`` (:func:`device.camera_input.files_notice`), withdrawn when
        none is severe."""
        from device.camera_input import files_notice

        self.file_problems = list(problems)
        notice = files_notice(self.file_problems)
        if notice is not None:
            self.notify("files", notice, None, until=None)
        else:
            self.withdraw("files")

    def withdraw(self, kind: str) -> bool:
        before = len(self.notices)
        self._withdrawn += [n for n in self.notices if n.kind == kind]  # until the next step (see notify)
        self.notices = [n for n in self.notices if n.kind != kind]
        if len(self.notices) != before:
            self._dirty = True
            return True
        return False

    def _expire(self, now: float) -> None:
        keep = [n for n in self.notices if n.until is None or n.until > now]
        if len(keep) != len(self.notices):
            self.notices = keep
            self._dirty = True
        if self.refusal is not None and self.refusal.over(now):
            self.refusal = None
            self._dirty = True
        if self.menu_shown and now - self._last_press > MENU_IDLE_S and self.entry is None:
            self.menu_shown = False
            self._dirty = True
        if self.legend is not None and now - self._last_press > MENU_IDLE_S:  # read, or forgotten: as the menu
            self.legend = None
            self._dirty = True

    def legend_pages(self) -> list[pages.TextPage]:
        from device.dashboards.legends import legend

        return pages.legend_pages(self.game.name, legend(self.game.name))

    def status_text(self) -> str | None:
        """One line saying what the chooser's screen shows (the simulator prints it under the screens)."""
        if self.legend is not None:
            return f"legend page {self.legend + 1}"
        if self.entry is not None:
            e = self.entry
            got = " ".join(e.request.name_of(f) for f in e.entered) or "-"
            return f"{e.request.label}: {got} | face {e.request.name_of(e.current)}"
        if self.cursor is not None and not self.cursor.empty and self.menu_shown:
            lv = self.cursor.level
            trail = " › ".join((self.cursor.menu.title, *self.cursor.trail))
            return f"{trail}: {self.cursor.current.label} ({lv.cursor % len(lv.choices) + 1}/{len(lv.choices)})"  # type: ignore[union-attr]
        return None

    def page_for(self, player: str, view: Any, now: float, blink_on: bool) -> Any | None:
        """The page that replaces ``player``'s dashboard now, or None for the dashboard."""
        dark = self._dark_screens()
        if self.refusal is not None and self._refusal_drawn_for(self.refusal, player, dark):
            # (a refusal for a player with no screen at all, not the chooser: "PRESS NOT TAKEN" for the step
            # before's, or a phone's command naming them, was drawn on no screen: a review of the OLEDs)
            return self.refusal.page_at(now)
        chooser = self.chooser()
        if self.legend is not None and (chooser in (None, player) or chooser in dark):
            # on the screen of who opened it (the chooser at the panel), not everybody's: every dashboard was
            # covered until a press, the camera's rolls and banners going by unseen (a review of the OLEDs)
            legend = self.legend_pages()
            return legend[min(self.legend, len(legend) - 1)]
        if chooser not in (None, player) and chooser not in dark:
            return None  # (a chooser whose screen is off, or who has none: their menu is on every screen)
        alert, since, stands = self._alert_text(player, view)
        if alert and not since:  # a game's own alert: its pieces start with the first from when it is first shown
            if len(self._alert_first) > 256:
                self._alert_first.clear()
            since = self._alert_first.setdefault((player, alert), now)
        pieces = pages.footer_pieces(alert)  # a long alert turns in the footer line, a piece at a time
        status_turn: int | None = None  # the status line's piece shown in the footer's own turns
        k = turns_since(now, since)  # the alert's turns since it was posted
        if alert and stands:
            # an alert standing as long as its cause (ON FIRE!, count exhaustion cards, CAMERA OFF, a
            # hazard count that differs from the log), or a news: the footer's own line (the vehicle's gear and
            # hazards, the rider, the dice hint) takes turns with it, each text whole, its pieces in a row (a piece
            # of each in turn read "red Rouleur: all…", "Stage 1 won by red…", "…exhaustion cards": a walkthrough);
            # after a news the chooser's own line comes first ("place on the new lead tile" waited 16 s behind a
            # scroll's news of three pieces; what the decision settled is on every other screen too)
            own = 1 if self.entry is not None or self.cursor is None else self._status_pieces(self.cursor.menu)
            news = self._is_news(alert)
            first = own if news else len(pieces)
            j = k % (own + len(pieces))
            own_turn = (j < first) == news
            status_turn = j if j < first else j - first  # the piece of the text whose turn it is
            alert = "" if own_turn else pieces[status_turn]
        else:
            alert = pieces[k % len(pieces)]
        if self.entry is not None:
            e = self.entry
            # a chooser with no screen enters their dice on every other screen: whose dice they are is said there
            # (an audit: "Roll skid dice 0/5 · skid dice (up to 5)" on four screens, and nobody's name)
            whose = f"{chooser}: " if chooser is not None and chooser != player and chooser in dark else ""
            page = pages.DicePage(
                # the path as the menu's title bar fits it ("Another goes first… › Cy first" was cut to "… › Cy…" at
                # 8 px, losing who goes first): the deepest lists that fit at a readable size
                title=pages.fitting_path(e.trail[0], e.trail[1:], pages.dice_count(len(e.entered), e.request.asked))
                if e.trail else self.menu().title,
                label=whose + e.request.label, entered=tuple(e.request.name_of(f) for f in e.entered),
                count=e.request.asked, exact=e.request.exact, current=e.request.name_of(e.current),
                ready=e.ready, alert=alert, kept=" · ".join(e.kept), name=roll_name(e.request),
                then_another=e.then_another)
            # a dice line or a label too long for the screen shows its pieces in turn (every die is read before NEXT;
            # a smash attack's label names its target, which the cut title lost)
            return dataclasses.replace(page, turn=int(now / pages.LABEL_TURN_S) % pages.dice_page_turns(page))
        cursor = self.cursor
        if cursor is None or cursor.empty or not self.menu_shown:
            return None
        lv = cursor.level
        entries = tuple((c.label, "branch" if c.children else "dice" if c.dice is not None else "leaf")
                        for c in lv.choices)
        title = pages.fitting_path(cursor.menu.title, cursor.trail, pages.menu_count(lv.cursor, len(lv.choices)))
        at = lv.cursor % len(lv.choices)
        # a status line too long for the footer ("Medium car · 3 spaces · co…" lost the coast) turns, a piece
        # at a time, as a long alert does
        status = pages.footer_pieces(cursor.menu.status)
        footer = status[(int(now / ALERT_PIECE_S) if status_turn is None else status_turn) % len(status)]
        page = pages.MenuPage(title, entries, at, footer, alert)
        # a highlighted label too long for its line ("Charlotte's Performance …") shows its end in turn, and so
        # does a title too long for its bar ("Pick for Charlotte's Perf…" hid whose pick it was)
        return dataclasses.replace(page, turn=int(now / pages.LABEL_TURN_S) % pages.menu_page_turns(page))

    @property
    def back_undoes(self) -> bool:
        """Whether BACK now undoes the last decision: no legend, no dice entry, the menu at its top (deeper, BACK
        only closes a list)."""
        cursor = self.cursor
        return (self.legend is None and self.entry is None and self.menu_shown
                and (cursor is None or len(cursor.levels) <= 1))

    def _ranked_notices(self) -> list[Notice]:
        """The notices in the order a screen shows the first of: NOT RECORDED; then the dice read (:data:`READINGS`);
        then the others that pass, as they were posted; then CAMERA OFF; then the other standing ones, the newest
        first.  All in the order they were posted,
        a standing notice hid every later one for as long as it stood: CAMERA OFF never reached a screen while
        "TABLE NOT READ: calibration" stood (an audit)."""
        def rank(item: tuple[int, Notice]) -> tuple[int, int]:
            k, n = item
            # a roll's reading before the other passing ones: posted after the news its roll made, "camera: 2" (4 s)
            # ended behind the Space Race's "USA reached box 2 first" (12 s) unseen, the die on no screen (a review)
            tier = (0 if n.kind == "not_recorded" else 1 if n.until is not None and n.kind in READINGS else
                    2 if n.until is not None else 3 if n.kind == "camera_down" else 4)
            return tier, k if tier < 4 else -k

        return [n for _, n in sorted(enumerate(self.notices), key=rank)]

    def _is_news(self, text: str) -> bool:
        return any(n.kind == "news" and n.text == text for n in self.notices)

    def _alert_text(self, player: str, view: Any) -> tuple[str, float, bool]:
        """(the alert for ``player``'s menu page, when it was posted (0 for the game's own alerts),
        whether it stands until its cause goes: the game's own, and notices posted ``until=None``)"""
        alerts = getattr(view, "alerts", ())
        # the game's own (the views drawn carry the app's notices too, a long news a piece of it: not the game's)
        own = [a for a in alerts if not any(a.kind == n.kind for n in self.notices)]
        # the answer to this player's own press first ("Choose: SELECT, then OK"): behind a news of every screen
        # posted before it, NEXT seemed to do nothing
        ranked = self._ranked_notices()
        answers = [n for n in ranked if n.kind == "info" and n.player == player]
        for n in answers + [n for n in ranked if n not in answers]:
            if n.kind in ("news", "recorded") and self.entry is not None:
                # a dice page's footer is the roll's: a piece of another car's news there, "…on The Brick: 1 hit ·…"
                # under "Attack… › Wasp", read as this roll's, and hid "OK keep · NEXT send" (a walkthrough); the
                # news is on every other screen, and was on this one's menu before the roll was opened.  So is what
                # the last choice recorded ("…on The Brick: smash…" under the next smash attack's dice, the demo)
                continue
            if n.player in (None, player):
                if n.kind == "hazard_mismatch" and own:
                    # the camera's count stands as long as its cause, and must not hide the game's own alert (LOST
                    # CONTROL went unseen under "take 7 hazard tokens off"): the game's first, then the count
                    return f"{own[0].text} · {n.text}", n.since, True
                # a game's news takes turns with the footer's own line, as a standing alert does: for 12 s it hid
                # the status of each exhaustion count and "Space Race over"
                return n.text, n.since, n.until is None or n.kind == "news"
        # the game's own alone: the view carries the app's notices too, and a news passed over on a dice page came
        # back here as the view's first alert (the demo's frames: "Smash: Rust Bucket…" under the next smash dice)
        return (str(own[0].text) if own else ""), 0.0, bool(own)

    def screen_views(self, now: float | None = None) -> list[Any]:
        """The game's views with the app's notices added as alerts (for the dashboards).  A game's news or a
        notice too long for a dashboard's notice box shows its pieces in turn (``device.dashboards.news_pieces``,
        ``notice_pieces``)."""
        now = self.clock() if now is None else now

        def shown(n: Notice) -> str:
            from device.dashboards import news_pieces, notice_pieces

            pieces = news_pieces(self.game.name, n.text) if n.kind == "news" else \
                notice_pieces(self.game.name, n.kind, n.text)
            return pieces[turns_since(now, n.since) % len(pieces)]

        alerts = [Alert(n.kind, shown(n), n.player) for n in self._ranked_notices()]  # once, not once per screen
        out = []
        seen: dict[tuple[Any, str, str], float] = {}
        for view in self.turn().views:
            player = getattr(view, "player", None)
            if getattr(view, "alerts", ()) and dataclasses.is_dataclass(view):
                view = dataclasses.replace(view, alerts=tuple(self._alert_piece(a, player, now, seen)
                                                              for a in view.alerts))
            extra = tuple(a for a in alerts if a.player is None or a.player == player)
            if self.entry is not None:  # a roll entered by another: who rolls it is told on their screen
                extra += tuple(Alert("roll", text, who) for who, text in self.entry.request.tell if who == player)
            if extra and hasattr(view, "alerts") and dataclasses.is_dataclass(view):
                view = dataclasses.replace(view, alerts=tuple(view.alerts) + extra)
            out.append(view)
        self._alerts_since = seen  # an alert gone and raised again begins again at its first piece
        return out

    def _alert_piece(self, alert: Alert, player: Any, now: float, seen: dict[tuple[Any, str, str], float]) -> Alert:
        """A game alert too long for its banner, as the piece of it shown now (``device.dashboards.alert_pieces``),
        turned on the alerts' beat from when this screen first showed it; else the alert itself."""
        from device.dashboards import alert_pieces

        pieces = alert_pieces(self.game.name, alert.kind, str(alert.text))
        if len(pieces) <= 1:
            return alert
        key = (player, alert.kind, str(alert.text))
        since = seen[key] = self._alerts_since.get(key, now)
        return dataclasses.replace(alert, text=pieces[turns_since(now, since) % len(pieces)])

    def redraw(self, now: float, *, force: bool = False) -> list[str]:
        """Render and show the screens whose picture changed; returns the players redrawn."""
        blink = lit(now)
        # alerts flash; a long label or dice line turns on its own beat, which the alerts' does not divide (a
        # review: turns drawn up to 1 s late, one shown for half a second); the unchanged screens are skipped below
        # a refusal's pages turn with time: redrawn when its page changes (at every pass while it stood, it drew every
        # screen and the phones' picture ~100 times a second, a core of a Pi: a review)
        page = self.refusal.page_index(now) if self.refusal is not None else None
        ticks = (blink, int(now / pages.LABEL_TURN_S), page)
        if ticks != self._ticks:
            self._ticks = ticks
            self._dirty = True
        if not (self._dirty or force):
            return []
        self._dirty = False
        drawn = []
        shown: dict[str, Any] = {}
        known = getattr(self.displays, "players", None)  # a bank draws only the players it has screens for
        for view in self.screen_views(now):
            player = str(getattr(view, "player", ""))
            screenless = known is not None and player not in known
            if screenless and not self.redraw_listeners:
                continue
            page = self.page_for(player, view, now, blink)
            image = self.render(self.game.name, view, blink) if page is None else render_page(page, blink)
            data = image.tobytes()
            if not force and self._last_images.get(player) == data:
                continue
            self._last_images[player] = data
            shown[player] = image
            if screenless:  # drawn for the listeners only (the phones' Live page: an audit found a player with no
                continue  # screen shown nowhere, not their gear, hazards, hull, VP or riders)
            self.displays.show(player, image)
            self.frames_drawn += 1
            drawn.append(player)
        for listener in self.redraw_listeners:
            listener(self, shown)
        return drawn


def render_page(page: Any, blink_on: bool) -> Any:
    if isinstance(page, pages.MenuPage):
        return pages.render_menu(page, blink_on=blink_on)
    if isinstance(page, pages.DicePage):
        return pages.render_dice(page, blink_on=blink_on)
    return pages.render_text(page, blink_on=blink_on)


# -- starting and resuming ------------------------------------------------------------------------------


def open_match(store: Any, game_module: Any, options: Mapping[str, Any] | None) -> tuple[int, Match[Any], bool]:
    """Resume the latest unfinished game of this kind in ``store``, or begin a new one with ``options``:
    ``(game_id, match, resumed)`` (see :meth:`device.store.Store.open_match`)."""
    return store.open_match(game_module.GAME, options)


def setup_options(game_module: Any, setup_path: Any | None, *,
                  fix: str = "correct it, or give another setup file") -> dict[str, Any]:
    """The table's options: the setup TOML file, or the game's EXAMPLE_SETUP when none is given.  A file
    that cannot be used is a ``ValueError`` (:class:`device.setup_files.SetupFileError`) naming it, what is
    wrong (a folder, missing, not UTF-8, not TOML with its line, nested too deeply) and ``fix``."""
    import tomllib

    from device.setup_files import read_setup_file

    if setup_path is None:
        text = getattr(game_module, "EXAMPLE_SETUP", None)
        if text is None:
            raise ValueError(f"{game_module.GAME.name} has no example setup; give one with [game] setup = \"FILE\"")
        return tomllib.loads(text)
    return read_setup_file(setup_path, fix=fix)
