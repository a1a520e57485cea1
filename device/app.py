"""The one loop that owns the game: inputs → commands → rules → store → views → screens.

Why one loop, no threads of its own: every change of the game passes through :meth:`App.apply`, in
order, on one thread, so there is nothing to lock and a test can drive the appliance step by step.  The
only other threads are gpiozero's, and they only put raw edges on a queue (:mod:`device.buttons`).

What feeds the loop, each iteration (:meth:`App.step`):

* **Buttons** (:class:`device.buttons.ButtonEvent`).  NEXT = advance the physical step (the prompt's
  ``confirm``, ``place_template``, ``end_shifts``; in dice entry: finish the roll); BACK = undo one
  decision (long: ``long_back_undo_steps``); SELECT = cycle the prompt's options (or the face of the die
  being typed); OK = send the selected option (or keep the typed die); long NEXT = ``skip_phase``, after
  a confirmation with OK; long OK = add the extra hazard tokens the camera counted (after its alert); a
  player's own button = OK for that player.

  The SELECT menu is every legal choice of the step, spelled out, so that a whole game can be played with
  the buttons alone: the prompt's options (through the game's ``option_command`` hook, or the shared
  vocabulary with its variants — Gaslands' template hands and the rear edge in gear 1), a choice that
  needs dice first (the game's ``option_dice`` hook, Gaslands' push it: OK opens the dice entry), and
  at the collision windows and the attack step the step's confirmation followed by hazard tokens, hits
  and collisions (:meth:`App._extra_choices`).  Only what the rules accept now is offered.
* **The camera** (:class:`device.camera.Camera`).  When the prompt awaits dice, the reading of the dice
  tray (full resolution, its region) is used once it has been the same for ``settle_frames`` frames and
  the dice are not the ones already used (a die that has not moved is not a new roll).  When the prompt
  awaits a template, the template the camera sees attached to the active vehicle is chosen the same
  way.  Hazard-token counts are compared with the log; a mismatch is an alert on the screens, never a
  command: the log is the truth and a person decides.
* **Time**: alerts blink, notices expire, the camera is reopened after a failure.

Every refusal of the rules is shown to the table as the rules worded it.  When the camera is down (or
absent) the table types dice with the buttons; a notice says so.  Everything with a side effect — the
clock, the buttons, the camera and the reader of its frames, the screens, the store — is injected.
"""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from games.core import Alert, Command, Match, Outcome, Prompt

from device.buttons import ButtonEvent, ButtonSource
from device.camera import Camera, CameraStatus, Frame
from device.config import Region
from device.store import StoreError

Clock = Callable[[], float]

#: How long a refusal or a one-off notice stays on the screens.
NOTICE_S = 4.0
#: Alerts blink at 1 Hz (on for half a second).
BLINK_S = 0.5

#: prompt.awaits → (command, argument) that an option of the prompt fills in.
OPTION_COMMANDS: dict[str, tuple[str, str]] = {
    "vehicle": ("activate", "vehicle"),
    "template": ("choose_template", "template"),
    "shift": ("shift", "use"),
    "target": ("attack", "target"),
}
#: Options that need one more argument; each variant becomes its own choice, kept if the rules allow it.
OPTION_VARIANTS: dict[tuple[str, str], tuple[dict[str, Any], ...]] = {
    ("shift", "cancel"): ({"result": "SPIN"}, {"result": "SLIDE"}, {"result": "HAZARD"}),
}
#: Short words for argument values in a choice's label (a 128-pixel line holds about 21 characters).
VARIANT_WORDS: dict[str, str] = {"left": "L", "right": "R"}


def gaslands_option_variants(prompt: Prompt, option: Any) -> tuple[dict[str, Any], ...]:
    """Gaslands' templates: a curved template is laid with its left or its right hand, any template at the
    rear edge to reverse (gear 1 only — the rules refuse it in other gears, so it is not offered there).

    The straights have no hand.  Reversing is rare, so every template's rear variants are listed after all
    the front ones (see :func:`later_variant`).  This is Gaslands' vocabulary (``choose_template``'s ``hand`` and
    ``edge``), kept here because the game package does not declare an ``option_variants`` hook; a game may
    declare ``option_variants(prompt, option) -> [args, ...]`` itself, which then wins.
    """
    if prompt.awaits != "template":
        return ({},)
    hands: tuple[dict[str, Any], ...] = ({},) if str(option).endswith("_straight") else (
        {"hand": "left"}, {"hand": "right"})
    return hands + tuple({**h, "edge": "rear"} for h in hands)


#: Per game: where a game's options take variants the game does not declare itself (by ``GAME.name``).
GAME_OPTION_VARIANTS: dict[str, Callable[[Prompt, Any], tuple[dict[str, Any], ...]]] = {
    "gaslands": gaslands_option_variants,
}


def later_variant(args: Mapping[str, Any]) -> bool:
    """Choices listed after all the others: reversing (the rear edge) is the rare move."""
    return args.get("edge") == "rear"


#: Choices a table repeats (one token, one hit at a time): after one is sent the cursor stays on it, so
#: OK OK OK adds three — instead of SELECTing back to it each time.
REPEATABLE = ("gain_hazard", "hits", "damage")
#: Commands NEXT sends, in order of preference, when the prompt lists them.
ADVANCE_COMMANDS = ("confirm", "place_template", "end_shifts")


def dice_args(command: str, faces: Sequence[Any]) -> dict[str, Any] | None:
    """The arguments of a dice command from the faces read or typed; None if ``command`` is not one."""
    if command == "skid_roll":
        return {"faces": list(faces)}
    if command == "flip_check":
        return {"die": faces[0]} if len(faces) == 1 else {"die": None}
    return None


DICE_COMMANDS = ("skid_roll", "flip_check")


class Displays(Protocol):
    """``device.displays.DisplayBank`` (or a test double): one image per player."""

    def show(self, player: str, image: Any) -> Any:
        ...


class TableReader(Protocol):
    """What the loop asks of vision (``VisionReader`` wraps ``vision.dice`` and ``vision.table``)."""

    def read_dice(self, image: Any, die: str) -> list[Any]:
        """Readings with ``.value`` (None: a die it cannot read) and ``.center`` (x, y)."""
        ...

    def read_table(self, image: Any) -> Any:
        """An object with ``.templates`` (``name, hand, attached_to, edge``) and ``.tokens`` (zone → count)."""
        ...


Renderer = Callable[[str, Any, bool], Any]


def default_renderer() -> Renderer:
    """``device.dashboards.render_view``; for a game with no dashboard yet, :func:`plain_render`."""
    try:
        from device.dashboards import dashboard, render_view
    except ImportError:
        return plain_render
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
    """A deliberately plain 128×64 layout (player, step, prompt, alerts) for games without a dashboard."""
    from PIL import Image, ImageDraw, ImageFont

    img = Image.new("1", (128, 64), 0)
    d = ImageDraw.Draw(img)
    font = ImageFont.load_default(size=10)
    lines = [str(getattr(view, "player", "")), str(getattr(view, "step", ""))]
    text = str(getattr(view, "prompt", ""))
    lines += [text[i:i + 21] for i in range(0, min(len(text), 42), 21)]
    for i, line in enumerate(lines[:4]):
        d.text((0, i * 12), line, fill=1, font=font)
    alerts = getattr(view, "alerts", ())
    if alerts and blink_on:
        d.rectangle((0, 52, 127, 63), fill=1)
        d.text((1, 52), str(alerts[0].text)[:21], fill=0, font=font)
    return img


@dataclass(frozen=True)
class Notice:
    """An app-level message for the screens (not a rules alert): ``until`` None = until withdrawn."""

    kind: str
    text: str
    player: str | None = None
    until: float | None = None


@dataclass(frozen=True)
class Choice:
    """One entry of the SELECT menu.  ``dice``: the choice needs dice typed first (a re-roll, a Road-die
    roll): OK opens a dice entry answering that prompt, and the game's ``dice_command`` completes the
    command with the faces (``command`` then only names what the choice is)."""

    label: str
    command: Command
    dice: Prompt | None = None
    #: For a choice with ``dice``: the faces typed → the command (None: the game's ``dice_command``).
    build: Callable[[list[Any]], Command | None] | None = field(default=None, compare=False)


@dataclass
class DiceEntry:
    """Dice typed with the buttons: SELECT cycles the face, OK keeps it, NEXT sends the roll."""

    command: str
    die: str
    faces: tuple[Any, ...]
    count: int | None
    entered: list[Any] = field(default_factory=list)
    cursor: int = 0
    #: The prompt the roll answers when it is not the match's own (a choice that needs dice).
    prompt: Prompt | None = None
    #: How the faces become a command for such a choice (None: :meth:`App.roll_command`).
    build: Callable[[list[Any]], Command | None] | None = None

    @property
    def current(self) -> Any:
        return self.faces[self.cursor]

    def text(self) -> str:
        got = " ".join(str(f) for f in self.entered) or "-"
        limit = f"/{self.count}" if self.count is not None else ""
        return f"DICE {len(self.entered)}{limit}: {got} | SEL {self.current} OK keep NEXT done"


@dataclass(frozen=True)
class Mismatch:
    """Hazard tokens the camera counted in a zone that differ from the log."""

    zone: str
    player: str | None
    vehicle: str | None  # the one vehicle the zone is for (None: a zone shared by several vehicles)
    name: str
    table: int
    log: int


@dataclass(frozen=True)
class Applied:
    """One command the loop sent and what the rules said (the sim and the tests read these)."""

    source: str  # "button", "camera", "keyboard"
    command: Command
    outcome: Outcome


@dataclass
class _Settle:
    """The same value ``need`` times in a row (``same`` decides what "the same" is)."""

    need: int
    last: Any = None
    count: int = 0
    same: Callable[[Any, Any], bool] = lambda a, b: a == b

    def feed(self, value: Any) -> bool:
        if self.last is not None and self.same(value, self.last):
            self.count += 1
        else:
            self.last, self.count = value, 1
        return self.count >= self.need

    def reset(self) -> None:
        self.last, self.count = None, 0


class App:
    """The appliance's loop around one :class:`games.core.Match`.

    ``game_module`` is the game package (``games.gaslands``): its ``GAME`` decides, its ``DIE_TYPES``
    gives the faces for dice typed by hand.  ``on_finished`` is called once when the game ends (the run
    command marks the game finished in the store).
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
        on_finished: Callable[[], None] | None = None,
    ) -> None:
        self.module = game_module
        self.game = game_module.GAME
        self.match = match
        self.buttons = buttons
        self.displays = displays
        self.clock = clock
        self.camera = camera
        self.reader = reader
        self.render = render or default_renderer()
        self.dice_region = dice_region
        self.settle_frames = settle_frames
        self.long_back_undo_steps = long_back_undo_steps
        self.table_every = max(1, table_every)
        self.on_finished = on_finished
        self.notices: list[Notice] = []
        self.history: list[Applied] = []
        self.entry: DiceEntry | None = None
        self.cursor = 0
        self.confirm_skip = False
        self.frames_drawn = 0
        self.iterations = 0
        self._finished_reported = False
        self._prompt_key: Any = None
        self._choices: list[Choice] = []
        self._dirty = True
        self._blink: bool | None = None
        self._last_images: dict[str, bytes] = {}
        self._dice = _Settle(settle_frames, same=same_dice)
        self._used_dice: tuple[tuple[Any, float, float], ...] | None = None  # the dice already used
        self._template = _Settle(settle_frames)
        self._sent_templates: dict[str, tuple[Any, ...]] = {}
        self._tokens = _Settle(settle_frames)
        self._tray_readings: list[Any] | None = None
        self.mismatches: list[Mismatch] = []
        self._camera_changes_seen = 0
        self._frames_seen = 0
        #: The camera's last failure, as the backend worded it (the screens show a short notice).
        self.camera_message = ""
        self._sync_prompt()

    # -- the loop ---------------------------------------------------------------------------------
    def step(self, now: float | None = None) -> list[Applied]:
        """One iteration: read inputs, act, redraw what changed.  Returns the commands sent."""
        now = self.clock() if now is None else now
        self.iterations += 1
        before = len(self.history)
        for event in self.buttons.poll(now):
            self.on_button(event, now)
        if self.camera is not None:
            frame = self.camera.poll(now)
            self._camera_notices()
            if frame is not None:
                self.on_frame(frame, now)
        self._expire(now)
        self.redraw(now)
        retry = getattr(self.displays, "poll", None)
        if retry is not None:
            retry()  # screens that went away are retried with the bank's own backoff
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
        """Send one command through the rules and the store; refusals become a notice."""
        now = self.clock() if now is None else now
        sender = self.match.prompt().player  # whose step it was: the refusal is theirs to read
        try:
            outcome = self.match.apply(command)
        except StoreError as exc:
            # Nothing was folded (the match folds only what the store returned): the game stays as it was,
            # the table is told, and the loop goes on so that the owner can see and fix the disk.
            outcome = Outcome(False, f"NOT RECORDED: {exc}", ())
        self.history.append(Applied(source, command, outcome))
        if not outcome.accepted and not outcome.records:
            # A refusal that recorded a consequence (Gaslands' touch-move) is on the screens already, as
            # the game's own alert; a plain refusal is told to the player whose step it was.
            self.notify("refused", outcome.reason or "refused", sender, now=now)
        self._dirty = True
        self._sync_prompt()
        if not self._finished_reported and getattr(self.match.state, "finished", False):
            self._finished_reported = True
            if self.on_finished is not None:
                self.on_finished()
        return outcome

    def prompt(self) -> Prompt:
        return self.match.prompt()

    def _sync_prompt(self) -> None:
        """A new prompt resets the selection, the dice entry and a pending skip confirmation."""
        prompt = self.match.prompt()
        key = (len(self.match.records), json.dumps(prompt.to_json(), sort_keys=True, default=str))
        if key == self._prompt_key:
            return
        previous = self._choices[self.cursor % len(self._choices)] if self._choices else None
        self._prompt_key = key
        self.cursor = 0
        self.entry = None
        self.confirm_skip = False
        self._choices = self._build_choices(prompt)
        if previous is not None and previous.command.type in REPEATABLE:
            for i, choice in enumerate(self._choices):
                if choice.label == previous.label:
                    self.cursor = i  # one more of the same is the likely next press
                    break
        self._template.reset()
        self._tray_readings = None
        self._dirty = True

    def _build_choices(self, prompt: Prompt) -> list[Choice]:
        """The SELECT menu: the prompt's options as commands (the game's ``option_command`` hook, else the
        shared vocabulary of :data:`OPTION_COMMANDS` with its variants), then :meth:`_extra_choices`.  Only
        what the rules accept now is offered: each command is proposed (nothing is recorded), and one the
        rules would refuse — outright or with a consequence, such as Gaslands' touch-move — is left out."""
        out: list[Choice] = []
        later: list[Choice] = []
        hook = getattr(self.module, "option_command", None)
        dice_hook = getattr(self.module, "option_dice", None)
        for option in prompt.options:
            candidates: list[tuple[Choice, bool]] = []
            if hook is not None:
                dice = dice_hook(prompt, option) if dice_hook is not None else None
                candidates.append((Choice(str(option), hook(prompt, option), dice), False))
            elif option in prompt.commands:
                candidates.append((Choice(str(option), Command(str(option))), False))
            elif prompt.awaits in OPTION_COMMANDS:
                kind, arg = OPTION_COMMANDS[prompt.awaits]
                for extra in self._variants(prompt, kind, option):
                    label = " ".join([str(option), *(VARIANT_WORDS.get(str(v), str(v)) for v in extra.values())])
                    command = Command.from_json({"type": kind, arg: option, **extra})
                    candidates.append((Choice(label, command), later_variant(extra)))
            for choice, is_later in candidates:
                if choice.dice is None and not self._allowed(choice.command):
                    continue  # the rules would refuse it now: do not offer it
                # (a choice that needs dice is checked by the rules when its dice are in; the game lists
                # it only when it is allowed)
                (later if is_later else out).append(choice)
        out += later
        out += self._push_it_choices(prompt)
        out += [c for c in self._extra_choices(prompt) if self._allowed(c.command)]
        return out

    def _push_it_choices(self, prompt: Prompt) -> list[Choice]:
        """Gaslands' push it (a hazard token to re-roll skid dice, before any SHIFT is spent) with the
        buttons: "push it" re-rolls the dice that are not SHIFT, "push it all" every die; OK opens the
        entry of the new faces (in the order of the dice re-rolled).  The positions come from the skid
        roll in the log — the camera path and scripts name them themselves."""
        if prompt.awaits != "shift" or "push_it" not in prompt.commands:
            return []
        act = getattr(self.match.state, "activation", None)
        results = [str(getattr(f, "value", f)) for f in (getattr(act, "skid_results", None) or ())]
        settings = getattr(self.match.state, "settings", None)
        die = "d6" if getattr(settings, "skid_dice", "skid") == "d6" else "skid"
        out = []
        keep_shifts = [i for i, f in enumerate(results) if f != "SHIFT"]
        for label, positions in (("push it", keep_shifts), ("push it all", list(range(len(results))))):
            if not positions or (label == "push it all" and positions == keep_shifts):
                continue  # nothing to re-roll, or the same dice as "push it"
            placeholder = [self.faces(die)[0]] * len(positions)  # any face: only the legality is asked
            command = Command("push_it", {"reroll": positions, "faces": placeholder})
            if not self._allowed(command):
                continue
            entry = dataclasses.replace(prompt, text=f"{label}: the new faces of {len(positions)} dice",
                                        awaits="dice", die=die, count=len(positions))
            out.append(Choice(label, command, entry, build=_push_builder(positions)))
        return out

    def _allowed(self, command: Command) -> bool:
        try:
            decision = self.match.propose(command)
        except Exception:
            return False
        return getattr(decision, "refused", None) is None

    def _variants(self, prompt: Prompt, kind: str, option: Any) -> tuple[dict[str, Any], ...]:
        """The extra arguments an option takes, one choice each: the game's ``option_variants`` hook, the
        shared :data:`OPTION_VARIANTS`, or the game's entry in :data:`GAME_OPTION_VARIANTS`."""
        hook = getattr(self.module, "option_variants", None)
        if hook is not None:
            return tuple(hook(prompt, option)) or ({},)
        if (kind, str(option)) in OPTION_VARIANTS:
            return OPTION_VARIANTS[(kind, str(option))]
        per_game = GAME_OPTION_VARIANTS.get(str(getattr(self.game, "name", "")))
        return per_game(prompt, option) if per_game is not None else ({},)

    def _extra_choices(self, prompt: Prompt) -> list[Choice]:
        """Menu entries for what happens on the table during a step that takes no option — the collision
        windows and the attack step of an activation (``hits``/``collision`` in the prompt's commands):
        the step's own confirmation first (OK still means "done", as without a menu), then, in the order
        a table needs them, a hazard token for the active vehicle (terrain), a hit on it, collisions with
        each other vehicle (evaded by both after), hits and hazard tokens on the others (attacks,
        weapons), and last a vehicle set on fire or put out.  One token or hit per press; the cursor stays
        on it (:data:`REPEATABLE`)."""
        cmds = prompt.commands
        if prompt.awaits != "confirm" or not ({"hits", "collision"} & set(cmds)):
            return []
        active = prompt.vehicle
        others = [str(v.id) for view in self.match.views() for v in getattr(view, "vehicles", ())
                  if str(getattr(v, "id", "")) != active and not getattr(v, "wrecked", False)]
        out: list[Choice] = []
        if "confirm" in cmds:
            out.append(Choice("confirm", Command("confirm")))
        if active is not None:
            if "gain_hazard" in cmds:
                out.append(Choice(f"+hazard {active}", Command("gain_hazard", {"vehicle": active, "count": 1,
                                                                             "cause": "terrain"})))
            if "hits" in cmds:
                out.append(Choice(f"+hit {active}", Command("hits", {"vehicle": active, "count": 1})))
        if "collision" in cmds:
            out += [Choice(f"crash {o}", Command("collision", {"vehicle": o, "both_evaded": False})) for o in others]
            out += [Choice(f"crash {o} evaded", Command("collision", {"vehicle": o, "both_evaded": True}))
                    for o in others]
        if "hits" in cmds:
            out += [Choice(f"+hit {o}", Command("hits", {"vehicle": o, "count": 1})) for o in others]
        if "gain_hazard" in cmds:
            out += [Choice(f"+hazard {o}", Command("gain_hazard", {"vehicle": o, "count": 1, "cause": "weapon"}))
                    for o in others]
        if "set_fire" in cmds:  # a flamethrower, a burning wreck: the rarest, last
            for view in self.match.views():
                for v in getattr(view, "vehicles", ()):
                    if hasattr(v, "on_fire") and not getattr(v, "wrecked", False):
                        on = not v.on_fire
                        out.append(Choice(f"{'set fire' if on else 'fire out'} {v.id}",
                                          Command("set_fire", {"vehicle": str(v.id), "on": on})))
        return out

    @property
    def choices(self) -> list[Choice]:
        return list(self._choices)

    # -- buttons ----------------------------------------------------------------------------------
    def on_button(self, event: ButtonEvent, now: float) -> None:
        self._dirty = True
        prompt = self.match.prompt()
        name, long = event.button, event.long
        if name == "back" and long:
            self.entry = None
            self.confirm_skip = False
            self.undo(self.long_back_undo_steps, now)
            return
        if self.confirm_skip:
            self.confirm_skip = False
            if name == "ok":
                self.apply(Command("skip_phase", {"confirm": True}), now=now)  # the table confirmed with OK
            else:
                self.notify("info", "skip cancelled", prompt.player, now=now)
            return
        if name == "ok" and long and self.entry is None:
            self.accept_table_hazards(now)
            return
        if name.startswith("p") and name[1:].isdigit():
            self._player_button(int(name[1:]), prompt, now)
            return
        if self.entry is not None and self._entry_button(name, now):
            return
        if name == "next":
            if long:
                if "skip_phase" in prompt.commands:
                    self.confirm_skip = True
                else:
                    self.notify("info", "no phase to skip now", prompt.player, now=now)
            else:
                self.advance(prompt, now)
        elif name == "back":
            self.undo(1, now)
        elif name == "select":
            if self._dice_command(prompt) and not self._choices:
                self.start_entry(prompt)  # the first SELECT shows the first face
            elif self._choices:
                self.cursor = (self.cursor + (-1 if long else 1)) % len(self._choices)
            else:
                self.notify("info", "nothing to choose now", prompt.player, now=now)
        elif name == "ok":
            self.ok(prompt, now)

    def _entry_button(self, name: str, now: float) -> bool:
        entry = self.entry
        assert entry is not None
        if name == "select":
            entry.cursor = (entry.cursor + 1) % len(entry.faces)
        elif name == "ok":
            if entry.count is not None and len(entry.entered) >= entry.count:
                self.notify("info", f"at most {entry.count} dice", self.match.prompt().player, now=now)
            else:
                entry.entered.append(entry.current)
        elif name == "back":
            if entry.entered:
                entry.entered.pop()
            else:
                self.entry = None
        elif name == "next":
            self.finish_entry(now)
        else:
            return False
        return True

    def _player_button(self, seat: int, prompt: Prompt, now: float) -> None:
        players = [getattr(v, "player", None) for v in self.match.views()]
        if seat > len(players):
            return
        player = players[seat - 1]
        if prompt.player is not None and player != prompt.player:
            self.notify("info", f"{prompt.player} is to act, not {player}", player, now=now)
            return
        if self.entry is not None:
            self._entry_button("ok", now)
        else:
            self.ok(prompt, now)

    def advance(self, prompt: Prompt, now: float) -> None:
        for kind in ADVANCE_COMMANDS:
            if kind in prompt.commands:
                self.apply(Command(kind), now=now)
                return
        if self._dice_command(prompt):
            # NEXT on a dice prompt with nothing typed: the roll is "no dice" (the rules decide if allowed).
            self.start_entry(prompt)
            self.finish_entry(now)
            return
        self.notify("info", f"NEXT: {prompt.text}", prompt.player, now=now)

    def ok(self, prompt: Prompt, now: float) -> None:
        if self._choices:
            choice = self._choices[self.cursor % len(self._choices)]
            if choice.dice is not None:
                self.start_entry(choice.dice, build=choice.build)  # the dice first: SEL face, OK keep, NEXT send
            else:
                self.apply(choice.command, now=now)
        elif self._dice_command(prompt):
            self.start_entry(prompt)
            if self.entry is not None:
                self._entry_button("ok", now)
        elif "confirm" in prompt.commands:
            self.apply(Command("confirm"), now=now)
        else:
            self.notify("info", f"OK: {prompt.text}", prompt.player, now=now)

    def undo(self, steps: int, now: float) -> None:
        steps = min(steps, self.match.undoable) or 1
        self.apply(Command("undo", {"steps": steps}), now=now)

    # -- dice -------------------------------------------------------------------------------------
    def _dice_command(self, prompt: Prompt) -> str | None:
        """The command a roll becomes now, or None when no dice are awaited.  A game whose dice command
        is not one of :data:`DICE_COMMANDS` exposes ``dice_command(prompt, faces) -> Command | None`` in
        its package; then any prompt with a ``die`` awaits dice."""
        if prompt.die is None:
            return None
        if getattr(self.module, "dice_command", None) is not None:
            return "game"
        for kind in DICE_COMMANDS:
            if kind in prompt.commands:
                return kind
        return None

    def roll_command(self, kind: str, prompt: Prompt, faces: Sequence[Any]) -> Command | None:
        """The faces of a roll as the command ``kind`` (from :meth:`_dice_command`)."""
        if kind == "game":
            return self.module.dice_command(prompt, list(faces))
        args = dice_args(kind, list(faces))
        return None if args is None else Command.from_json({"type": kind, **args})

    def faces(self, die: str) -> tuple[Any, ...]:
        table = getattr(self.module, "DIE_TYPES", {}) or {}
        faces = list(table.get(die, range(1, 7)))
        return tuple(dict.fromkeys(faces))  # a skid die has SHIFT three times: offer it once

    def start_entry(self, prompt: Prompt, *, build: Callable[[list[Any]], Command | None] | None = None) -> None:
        """Open a dice entry for ``prompt`` (the match's, or a dice choice's own prompt and ``build``)."""
        kind = "choice" if build is not None else self._dice_command(prompt)
        if kind is None or self.entry is not None:
            return
        assert prompt.die is not None
        own = None if prompt == self.match.prompt() else prompt
        self.entry = DiceEntry(kind, prompt.die, self.faces(prompt.die), prompt.count, prompt=own, build=build)
        self._dirty = True

    def finish_entry(self, now: float) -> None:
        entry = self.entry
        if entry is None:
            return
        self.entry = None
        prompt = entry.prompt if entry.prompt is not None else self.match.prompt()
        if entry.build is not None:
            command = entry.build(list(entry.entered))
        else:
            command = self.roll_command(entry.command, prompt, entry.entered)
        if command is not None:
            self.apply(command, source="button", now=now)

    def type_faces(self, faces: Sequence[Any], now: float | None = None, *, source: str = "keyboard") -> Outcome | None:
        """Send a whole roll at once (the simulator's typed digits)."""
        prompt = self.match.prompt()
        build = None
        if self.entry is not None and self.entry.prompt is not None:
            prompt, build = self.entry.prompt, self.entry.build  # the dice a choice asked for (a re-roll ...)
        kind = "choice" if build is not None else self._dice_command(prompt)
        if kind is None:
            self.notify("info", "no dice are awaited now", prompt.player, now=now)
            return None
        self.entry = None
        command = build(list(faces)) if build is not None else self.roll_command(kind, prompt, faces)
        if command is None:
            self.notify("info", "these dice make no command now", prompt.player, now=now)
            return None
        return self.apply(command, source=source, now=now)

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
                self.mismatches = []
                self._tokens.reset()
                self.notify("camera_down", "CAMERA OFF: dice by hand", None, until=None, now=t)
                self.camera_message = message
            else:
                had = self.withdraw("camera_down")
                if had:
                    self.notify("camera_back", "camera back", None, now=t)

    def on_frame(self, frame: Frame, now: float) -> None:
        if self.reader is None:
            return
        self._frames_seen += 1
        prompt = self.match.prompt()
        kind = self._dice_command(prompt)
        if kind is not None and self.entry is None:
            self._frame_dice(frame, prompt, kind, now)
        wants_template = prompt.awaits == "template" and "choose_template" in prompt.commands
        if wants_template or self._frames_seen % self.table_every == 0:
            try:
                table = self.reader.read_table(frame.image)
            except Exception as exc:  # a frame vision cannot read (calibration lost ...) is no command
                self.notify("vision", f"table not read: {exc}"[:60], None, now=now)
                return
            if table is None:
                return
            if wants_template:
                self._frame_template(table, prompt, now)
            self._frame_tokens(table, now)

    def _frame_dice(self, frame: Frame, prompt: Prompt, kind: str, now: float) -> None:
        assert self.reader is not None and prompt.die is not None
        tray = frame.crop(self.dice_region)
        still_fn = getattr(self.reader, "tray_still", None)
        still = still_fn(tray) if still_fn is not None else None
        if still is False:  # dice rolling, a hand over the tray: nothing is read
            self._dice.reset()
            self._tray_readings = None
            return
        if still and self._tray_readings is not None:
            readings = self._tray_readings  # still since the last read: the same dice, no need to read again
        else:
            try:
                readings = list(self.reader.read_dice(tray, self.vision_die(prompt.die)))
            except Exception as exc:
                self.notify("vision", f"dice not read: {exc}"[:60], None, now=now)
                return
            self._tray_readings = readings if still else None
        if not readings:
            self._used_dice = None  # the tray was emptied: the next dice are a new roll
            self._dice.reset()
            return
        if any(r.value is None for r in readings):
            self._dice.reset()  # a die it cannot read (a hand, dice still tumbling): wait
            return
        dice = tuple((_plain(r.value), float(r.center[0]), float(r.center[1]))
                     for r in sorted(readings, key=lambda r: (r.center[1], r.center[0])))
        if not self._dice.feed(dice):
            return
        if self._used_dice is not None and same_dice(dice, self._used_dice):
            return  # the dice already used lie where they were: not a new roll
        values = [d[0] for d in dice]
        if prompt.count is not None and len(values) > prompt.count:
            self.notify("dice", f"{len(values)} dice on the tray, at most {prompt.count}", prompt.player, now=now)
            return
        command = self.roll_command(kind, prompt, values)
        self._used_dice = dice
        self._dice.reset()
        if command is not None:
            self.apply(command, source="camera", now=now)

    def vision_die(self, die: str) -> str:
        """The die as the camera should read it.  A die the owner taught is read by its taught faces; a
        game's own name for plain pip dice (Thunder Road's movement dice: faces 1-6) is read as a d6."""
        library = getattr(self.reader, "faces", None)  # a vision.dice.FaceLibrary when the reader has one
        taught = callable(getattr(library, "dice", None)) and die in library.dice()
        if die != "d6" and not taught and list(getattr(self.module, "DIE_TYPES", {}).get(die, ())) == [1, 2, 3, 4, 5, 6]:
            return "d6"
        return die

    def _frame_template(self, table: Any, prompt: Prompt, now: float) -> None:
        vehicle = prompt.vehicle
        seen = [t for t in getattr(table, "templates", ()) if getattr(t, "attached_to", None) == vehicle]
        if len(seen) != 1:
            self._template.reset()
            return
        t = seen[0]
        key = (t.name, getattr(t, "hand", None), getattr(t, "edge", None))
        if not self._template.feed(key):
            return
        if vehicle is not None and self._sent_templates.get(vehicle) == key:
            return  # already sent (and perhaps refused: the touch-move picker must change it)
        if vehicle is not None:
            self._sent_templates[vehicle] = key
        args: dict[str, Any] = {"type": "choose_template", "template": t.name}
        if key[1] is not None:
            args["hand"] = key[1]
        if key[2] is not None:
            args["edge"] = key[2]
        self.apply(Command.from_json(args), source="camera", now=now)

    def _frame_tokens(self, table: Any, now: float) -> None:
        tokens = getattr(table, "tokens", None) or {}
        counted = tuple(sorted((str(z), n) for z, n in tokens.items() if n is not None))
        if not counted or not self._tokens.feed(counted):
            return
        self.withdraw("hazard_mismatch")
        self.mismatches = []
        logged = self.logged_hazards()
        for zone, n in counted:
            if zone in logged:
                player, name, expected, vehicle = logged[zone]
                if expected != n:
                    self.mismatches.append(Mismatch(zone, player, vehicle, name, n, expected))
                    hint = " (long OK adds)" if vehicle is not None and n > expected else ""
                    self.notify("hazard_mismatch", f"{name}: {n} tokens, log {expected}{hint}", player,
                                until=None, now=now)

    def accept_table_hazards(self, now: float) -> None:
        """Long OK: the table's extra hazard tokens become ``gain_hazard`` commands — a person asked for
        it, after seeing the alert.  Fewer tokens on the table than in the log is never "fixed" this way:
        tokens are removed by rules (a SHIFT, a wipeout), so that is for BACK/undo or the rules to settle."""
        prompt = self.match.prompt()
        wanted = [m for m in self.mismatches if m.vehicle is not None and m.table > m.log]
        if not wanted:
            self.notify("info", "no extra hazard tokens to add", prompt.player, now=now)
            return
        if "gain_hazard" not in prompt.commands:
            self.notify("info", "hazards can be added during an activation", prompt.player, now=now)
            return
        for m in wanted:
            self.apply(Command.from_json({"type": "gain_hazard", "vehicle": m.vehicle, "count": m.table - m.log,
                                          "cause": "tokens counted on the table"}), now=now)
        self.mismatches = []
        self.withdraw("hazard_mismatch")

    def logged_hazards(self) -> dict[str, tuple[str | None, str, int, str | None]]:
        """Zone name → (player, label, hazard tokens in the log, the one vehicle the zone is for or None).
        A zone may be named after a vehicle (its id), a player (name) or a seat (``p1``..): a player's zone
        holds all their vehicles' tokens."""
        out: dict[str, tuple[str | None, str, int, str | None]] = {}
        for seat, view in enumerate(self.match.views(), start=1):
            player = getattr(view, "player", None)
            total = 0
            ids = []
            for v in getattr(view, "vehicles", ()):
                if not hasattr(v, "hazards"):
                    continue
                total += int(v.hazards)
                ids.append(str(v.id))
                out[str(v.id)] = (player, str(getattr(v, "name", v.id)), int(v.hazards), str(v.id))
            only = ids[0] if len(ids) == 1 else None
            if player is not None:
                out.setdefault(str(player), (player, str(player), total, only))
                out.setdefault(f"p{seat}", (player, str(player), total, only))
        return out

    # -- notices and screens ----------------------------------------------------------------------
    def notify(self, kind: str, text: str, player: str | None, *, until: float | None | str = "auto",
               now: float | None = None) -> None:
        now = self.clock() if now is None else now
        end = now + NOTICE_S if until == "auto" else until
        if kind not in ("hazard_mismatch",):
            self.notices = [n for n in self.notices if not (n.kind == kind and n.player == player)]
        self.notices.append(Notice(kind, text, player, end))  # type: ignore[arg-type]
        self._dirty = True

    def withdraw(self, kind: str) -> bool:
        before = len(self.notices)
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

    def status_text(self) -> str | None:
        """What the acting player's prompt line shows instead of the rules' prompt, if anything."""
        if self.confirm_skip:
            return "SKIP PHASE? OK=yes"
        if self.entry is not None:
            return self.entry.text()
        if self._choices:
            choice = self._choices[self.cursor % len(self._choices)]
            return f"> {choice.label} ({self.cursor % len(self._choices) + 1}/{len(self._choices)}) OK"
        return None

    def screen_views(self) -> list[Any]:
        """The game's views with the app's notices added as alerts and the selection in the prompt."""
        prompt = self.match.prompt()
        status = self.status_text()
        out = []
        for view in self.match.views():
            player = getattr(view, "player", None)
            extra = tuple(Alert(n.kind, n.text, n.player) for n in self.notices
                          if n.player is None or n.player == player)
            changes: dict[str, Any] = {}
            if extra and hasattr(view, "alerts"):
                changes["alerts"] = tuple(view.alerts) + extra
            if status is not None and hasattr(view, "prompt") and (prompt.player in (None, player)):
                changes["prompt"] = status
            if changes and dataclasses.is_dataclass(view):
                view = dataclasses.replace(view, **changes)
            out.append(view)
        return out

    def redraw(self, now: float, *, force: bool = False) -> list[str]:
        """Render and show the screens whose picture changed; returns the players redrawn."""
        blink = int(now / BLINK_S) % 2 == 0
        views = None
        if blink != self._blink:
            self._blink = blink
            views = self.screen_views()
            if any(getattr(v, "alerts", ()) for v in views):
                self._dirty = True
        if not (self._dirty or force):
            return []
        self._dirty = False
        drawn = []
        known = getattr(self.displays, "players", None)  # a bank draws only the players it has screens for
        for view in views if views is not None else self.screen_views():
            player = str(getattr(view, "player", ""))
            if known is not None and player not in known:
                continue
            image = self.render(self.game.name, view, blink)
            data = image.tobytes()
            if not force and self._last_images.get(player) == data:
                continue
            self._last_images[player] = data
            self.displays.show(player, image)
            self.frames_drawn += 1
            drawn.append(player)
        return drawn


def _push_builder(positions: list[int]) -> Callable[[list[Any]], Command | None]:
    def build(faces: list[Any]) -> Command | None:
        return Command("push_it", {"reroll": positions, "faces": list(faces)})

    return build


#: Two readings of a die are the same die if its centre moved less than this (pixels of the tray crop).
SAME_DIE_PX = 12.0


def same_dice(a: Sequence[tuple[Any, float, float]], b: Sequence[tuple[Any, float, float]],
              tol: float = SAME_DIE_PX) -> bool:
    """The same dice showing the same faces in (nearly) the same places — centre estimates jitter by a
    pixel or two between frames, and a bumped tray moves dice a little without rolling them."""
    if len(a) != len(b):
        return False
    left = list(b)
    for value, x, y in a:
        for k, (v2, x2, y2) in enumerate(left):
            if value == v2 and abs(x - x2) <= tol and abs(y - y2) <= tol:
                del left[k]
                break
        else:
            return False
    return True


def _plain(value: Any) -> Any:
    """A face as the rules take it: enum members by value, numpy ints as int."""
    value = getattr(value, "value", value)
    if hasattr(value, "item"):
        value = value.item()
    return value


# -- starting and resuming ------------------------------------------------------------------------------


def open_match(store: Any, game_module: Any, options: Mapping[str, Any] | None) -> tuple[int, Match[Any], bool]:
    """Resume the latest unfinished game of this kind in ``store``, or begin a new one with ``options``:
    ``(game_id, match, resumed)`` (see :meth:`device.store.Store.open_match`)."""
    return store.open_match(game_module.GAME, options)


def setup_options(game_module: Any, setup_path: Any | None) -> dict[str, Any]:
    """The table's options: the setup TOML file, or the game's EXAMPLE_SETUP when none is given."""
    import tomllib
    from pathlib import Path

    if setup_path is None:
        text = getattr(game_module, "EXAMPLE_SETUP", None)
        if text is None:
            raise ValueError(f"{game_module.GAME.name} has no example setup; give one with [game] setup = \"FILE\"")
        return tomllib.loads(text)
    path = Path(setup_path)
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ValueError(f"setup file {path} does not exist") from None
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"setup file {path} is not valid TOML: {exc}") from None


# -- vision ---------------------------------------------------------------------------------------------


class VisionReader:
    """:class:`TableReader` over ``vision.dice.read_dice``, ``vision.stillness`` and ``vision.table.read_table``.

    The tray is watched with a cheap :class:`vision.stillness.StillnessDetector` on every frame, and the
    (dearer) dice reader runs only once the tray is still — dice in motion are never read.  Without a
    calibration there is no table reading (templates and tokens are then entered with the buttons); dice
    are read all the same.
    """

    def __init__(self, *, calibration: Any = None, table_config: Any = None, faces: Any = None,
                 still_frames: int = 2) -> None:
        self.calibration = calibration
        self.table_config = table_config
        self.faces = faces
        from vision.stillness import StillnessDetector

        self._tray = StillnessDetector(max(2, still_frames))

    def tray_still(self, image: Any) -> bool:
        return bool(self._tray.update(image))

    def read_dice(self, image: Any, die: str) -> list[Any]:
        from vision.dice import read_dice

        return list(read_dice(image, die=die, library=self.faces))

    def read_table(self, image: Any) -> Any:
        if self.calibration is None:
            return None
        from vision.table import read_table

        return read_table(image, self.calibration, self.table_config)

    @classmethod
    def from_files(cls, calibration: Any | None, faces: Any | None, car_tags: Mapping[int, str] | None = None
                   ) -> "VisionReader":
        """Load the owner's calibration (None or a missing file: no table reading) and face library
        (``[vision] faces``, default the data folder's; a damaged file is a clear error)."""
        from pathlib import Path

        from device.dice_library_files import load_library

        cal = cfg = None
        if calibration is not None and Path(calibration).exists():
            from vision.calibration import Calibration
            from vision.table import default_config

            cal = Calibration.from_dict(json.loads(Path(calibration).read_text(encoding="utf-8")))
            cfg = default_config()
            if car_tags:
                cfg = dataclasses.replace(cfg, car_tags=dict(car_tags))
        lib = load_library(Path(faces) if faces is not None else None)
        return cls(calibration=cal, table_config=cfg, faces=lib)


def car_tags_from_options(options: Mapping[str, Any]) -> dict[int, str]:
    """Tag id → vehicle id from a setup (``[[players.vehicles]] tag = 10``): how the camera names cars."""
    out: dict[int, str] = {}
    for player in options.get("players", []) or []:
        for v in (player.get("vehicles", []) if isinstance(player, Mapping) else []) or []:
            if isinstance(v, Mapping) and isinstance(v.get("tag"), int) and isinstance(v.get("id"), str):
                out[v["tag"]] = v["id"]
    return out

