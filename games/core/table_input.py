"""The table-input protocol: what a player can do at a prompt, as a game declares it.

A game answers ``GAME.menu(state) -> Menu``: a small tree of labelled choices in the rulebook's words.
A leaf is a :class:`Command` (or a roll to enter first: :class:`DiceRequest`); a branch opens a sub-menu.
The button panel, the simulator and the benchmark only walk this tree: they never build a game's command
themselves, so that the loop in ``device/`` knows no game's vocabulary.

How a player walks it (``device/menus.py`` does exactly this, and :func:`presses` counts it):

* the cursor starts on the choice marked ``default`` (else the first);
* SELECT moves to the next choice, a long SELECT to the previous one, both wrapping round;
* OK takes the choice: a leaf sends its command, a branch opens (its cursor on its own default), a roll
  opens the dice entry;
* BACK goes up one level (at the top level it is undo);
* NEXT takes a choice and then each list's default down to a leaf: at the top level the step's usual way on
  that the game names (``Menu.advance``: "Moved", "Template placed", "Roll skid dice"; none where the
  step is a real decision, such as which template), in an open list the highlighted choice.

So a choice ``d`` places from the cursor in a list of ``n`` costs ``min(d, n - d)`` moves and one OK, and
the rest of a way that follows defaults costs one NEXT.

Menus stay short because of that arithmetic: the first level holds at most :data:`FIRST_LEVEL_MAX`
choices, grouped the way a player thinks (template → hand; collision → which car → evaded or not).

``Menu.dice`` is the roll the table awaits now, if any (the skid check, the flip check, a movement roll):
the camera answers it directly; on the buttons it is also a choice of the menu.  ``Menu.template`` and
``Menu.hazards`` say how a template or hazard tokens the camera saw become the game's commands.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from games.core.model import Command

#: The first level of any menu holds at most this many choices.
FIRST_LEVEL_MAX = 8

#: faces (in the order entered or read) → the command they make, a second roll to enter (an attack's
#: dice, then the target's evade dice), or None when they make none.
DiceBuilder = Callable[[Sequence[Any]], "Command | DiceRequest | None"]


@dataclass(frozen=True)
class DiceRequest:
    """A roll to be entered: ``count`` dice of the game's die ``die`` (a name in its ``DIE_TYPES``).

    ``exact``: exactly ``count`` dice (four movement dice); otherwise 0 to ``count`` (skid dice up to
    Handling).  ``label`` names the dice as the rulebook does ("skid dice", "Fire die").  ``faces``, when
    given, are the faces offered on the buttons (else all faces of the die); ``face_names`` are words to
    show for faces that are not self-explanatory (a d6 standing in for skid dice: ``{1: "HAZARD"}``).
    ``build`` turns the faces into the command.  ``tell``: what the players who roll them are told.
    """

    die: str
    count: int
    label: str
    build: DiceBuilder = field(compare=False)
    exact: bool = True
    faces: tuple[Any, ...] = ()
    face_names: tuple[tuple[Any, str], ...] = ()
    #: (player, words) for players who roll these dice while another enters them (the target's evade dice):
    #: shown on their own screens while the roll is entered
    tell: tuple[tuple[str, str], ...] = ()
    #: the roll the rules give, where ``count`` (not ``exact``) also leaves room for the table's own: Gaslands'
    #: evade dice "equal to its current gear" (fewer for a perk or weapon), a smash attack's dice by the crash's
    #: kind (more for a ram or a perk).  The page counts against it ("1/3", not the "1/12" of the room), and a
    #: roll of another count is sent only when asked for again (the buttons' second NEXT, the phone's box)
    usual: int | None = None

    @property
    def asked(self) -> int:
        """The count a page shows against the dice entered: the usual roll's, else the most it takes."""
        return self.count if self.usual is None else self.usual

    @property
    def dice_name(self) -> str:
        """The dice without the count asked, for a roll once made: "skid dice (up to 4)" → "skid dice"
        ("smash dice (5 ± weight) 6 4" was cut before its faces on the next roll's page)."""
        head, sep, tail = self.label.rpartition(" (")
        return head if sep and tail.endswith(")") else self.label

    def name_of(self, face: Any) -> str:
        """How a face is shown on the screen ("4 SHIFT" for a d6 skid stand-in, else the face itself)."""
        for f, word in self.face_names:
            if f == face:
                return f"{face} {word}"
        return str(face)

    def command(self, faces: Sequence[Any]) -> "Command | DiceRequest | None":
        """The command for these faces (or the next roll to enter), or None (a wrong count makes none)."""
        n = len(faces)
        if n > self.count or (self.exact and n != self.count):
            return None
        return self.build(list(faces))


@dataclass(frozen=True)
class Choice:
    """One entry of a menu: exactly one of ``command`` (a leaf), ``dice`` (a roll to enter, then sent),
    ``children`` (a sub-menu).  ``label`` is in the rulebook's words ("Short Straight", "Gear up",
    "Collision: The Brick, evaded"), ``default`` marks the likeliest entry of its list."""

    label: str
    command: Command | None = None
    dice: DiceRequest | None = None
    children: tuple["Choice", ...] = ()
    default: bool = False
    #: the rules refuse ``command`` and record what follows from it (Gaslands' touch-move: a template that is
    #: not permitted was picked): offered all the same, since the table must be able to say it happened
    recorded_refusal: bool = False
    #: taken, the cursor does not stay on it (it goes back to its first-level branch): in a list that stays open
    #: one more OK would record it again, and the line reads the same after it (Gaslands' collision)
    once: bool = False

    def __post_init__(self) -> None:
        kinds = sum((self.command is not None, self.dice is not None, bool(self.children)))
        if kinds != 1:
            raise ValueError(f"menu choice {self.label!r} must be one of: a command, a roll, a sub-menu")

    @property
    def is_branch(self) -> bool:
        return bool(self.children)


@dataclass(frozen=True)
class Menu:
    """What can be done at one prompt.

    ``title`` names the step as the player knows it ("1.1 Template"); ``status`` is one short line of
    facts the chooser needs while the menu covers their dashboard ("Gear 3/6 · 2 hazards"); ``player``
    chooses (None: anybody at the table); ``dice`` is the roll awaited now (the camera may answer it).
    """

    title: str
    choices: tuple[Choice, ...]
    player: str | None = None
    status: str = ""
    dice: DiceRequest | None = None
    #: The camera saw a template laid against the active vehicle: (template, hand, edge) → the command
    #: that picks it (None: templates are not chosen now).
    template: Callable[[str, str | None, str | None], Command] | None = field(default=None, compare=False)
    #: Hazard tokens the camera counted beside a vehicle that the log lacks, added because a person asked:
    #: (vehicle id, how many more) → the command (None: hazard tokens are not taken now).
    hazards: Callable[[str, int], Command] | None = field(default=None, compare=False)
    #: The template picked for the active vehicle that is being placed now, by the name ``template`` takes
    #: ("gentle"; None: no template is being placed).  Another laid against the vehicle is told (touch-move).
    placing: str | None = None
    #: The path of the top-level choice NEXT takes: the step's usual way on ("Moved"); () where the step is a
    #: decision NEXT must not guess.
    advance: tuple[str, ...] = ()

    def with_advance(self, label: str | None) -> "Menu":
        """This menu with NEXT taking the top-level choice ``label`` (when it is still on offer)."""
        if label is None or not any(c.label == label for c in self.choices):
            return self
        return replace(self, advance=(label,))


#: A choice's label may end with a reading after this ("The Brick · hull 7"): the words before it name the
#: choice, so a cursor left on it finds it again when the reading has changed (one more hit taken).
READING_SEP = " · "


def choice_name(label: str) -> str:
    """A label without its reading: ``The Brick · hull 7`` → ``The Brick``."""
    return label.split(READING_SEP, 1)[0]


def leaf(label: str, command: Command, *, default: bool = False, recorded_refusal: bool = False,
         once: bool = False) -> Choice:
    return Choice(label, command=command, default=default, recorded_refusal=recorded_refusal, once=once)


def branch(label: str, children: Sequence[Choice | None], *, default: bool = False) -> Choice | None:
    """A sub-menu, or None when it would be empty (nothing under it is legal now)."""
    kept = tuple(c for c in children if c is not None)
    return Choice(label, children=kept, default=default) if kept else None


def roll(label: str, request: DiceRequest, *, default: bool = False) -> Choice:
    return Choice(label, dice=request, default=default)


def accepted_by(decide: Callable[[Any, Command], Any], state: Any) -> Callable[[Command], bool]:
    """``legal(command)`` for :func:`keep_legal`: the game's ``decide`` takes it now, as a plain acceptance
    (a refusal with a consequence, such as Gaslands' touch-move, is not offered)."""
    from games.core.model import Illegal

    def legal(command: Command) -> bool:
        try:
            return getattr(decide(state, command), "refused", None) is None
        except Illegal:
            return False

    return legal


def keep_legal(choices: Sequence[Choice | None], legal: Callable[[Command], bool]) -> tuple[Choice, ...]:
    """The choices whose commands the rules accept now (``legal(command)``), sub-menus pruned the same way
    and dropped when nothing is left under them.  Rolls are kept: their faces are not known yet, and the
    game offers a roll only where it is allowed; so is a ``recorded_refusal`` (the game offers it only where
    its refusal is recorded)."""
    out: list[Choice] = []
    for choice in choices:
        if choice is None:
            continue
        if choice.children:
            kids = keep_legal(choice.children, legal)
            if kids:
                out.append(Choice(choice.label, children=kids, default=choice.default))
        elif choice.dice is not None or choice.recorded_refusal or (choice.command is not None
                                                                     and legal(choice.command)):
            out.append(choice)
    return tuple(out)


def default_index(choices: Sequence[Choice]) -> int:
    for i, choice in enumerate(choices):
        if choice.default:
            return i
    return 0


def moves(start: int, target: int, n: int) -> int:
    """SELECT or long-SELECT presses from ``start`` to ``target`` in a wrapping list of ``n``."""
    d = (target - start) % n if n else 0
    return min(d, n - d)


def route(start: int, target: int, n: int) -> list[str]:
    """The presses from ``start`` to ``target``: ``"select"`` forward or ``"select_long"`` back."""
    d = (target - start) % n if n else 0
    return ["select"] * d if d <= n - d else ["select_long"] * (n - d)


@dataclass(frozen=True)
class Leaf:
    """A leaf of a menu with the path to it and the presses that reach it from a fresh menu."""

    path: tuple[str, ...]
    choice: Choice
    keys: tuple[str, ...]

    @property
    def presses(self) -> int:
        return len(self.keys)


def default_chain(choice: Choice) -> tuple[str, ...]:
    """The labels below ``choice`` when each list's default is taken down to a leaf (NEXT's way)."""
    labels: list[str] = []
    while choice.children:
        choice = choice.children[default_index(choice.children)]
        labels.append(choice.label)
    return tuple(labels)


def leaves(choices: Sequence[Choice], *, advance: Sequence[str] = (), path: tuple[str, ...] = (),
           keys: tuple[str, ...] = ()) -> Iterator[Leaf]:
    """Every command or roll of the tree with the button presses that reach it from a fresh menu — the
    arithmetic in this module's docstring.  NEXT takes a choice and then each list's default down to a
    leaf: in an open list the highlighted choice, at the top the menu's ``advance`` (whatever the cursor)."""
    here = default_index(choices)
    top = not path
    for i, choice in enumerate(choices):
        walk = (*keys, *route(here, i, len(choices)))
        p = (*path, choice.label)
        next_ok = tuple(advance[:1]) == (choice.label,) if top else True
        quick = ("next",) if top else (*walk, "next")
        if not choice.children:
            k = (*walk, "ok")
            yield Leaf(p, choice, quick if next_ok and len(quick) < len(k) else k)
            continue
        chain = (*p, *default_chain(choice))
        for lf in leaves(choice.children, path=p, keys=(*walk, "ok")):
            if next_ok and lf.path == chain and len(quick) < len(lf.keys):
                lf = Leaf(lf.path, lf.choice, quick)
            yield lf


def find_leaf(menu: Menu, command: Command) -> Leaf | None:
    """The cheapest leaf that sends ``command`` as it is (a roll's leaf matches by the command its faces
    make: pass ``faces`` through :func:`find_roll` instead)."""
    best: Leaf | None = None
    for lf in leaves(menu.choices, advance=menu.advance):
        if lf.choice.command == command and (best is None or lf.presses < best.presses):
            best = lf
    return best


def sample_command(request: DiceRequest, faces: Sequence[Any]) -> Command | None:
    """The command a roll makes with some of ``faces`` (the die's faces): which command a roll leaf
    sends, for checks that every command of a prompt can be reached (a chained roll is followed)."""
    pick = [faces[0]] * request.count if faces else []
    result: Command | DiceRequest | None = request.command(pick if request.exact else pick[:1])
    for _ in range(3):
        if isinstance(result, DiceRequest):
            nxt = result
            result = nxt.command([faces[0]] * (nxt.count if nxt.exact else 1) if faces else [])
    return result if isinstance(result, Command) else None


def cheapest(menu: Menu, die_types: Mapping[str, Sequence[Any]]) -> dict[str, int]:
    """Command type → the fewest presses that send it from the fresh menu (a roll: that open its entry)."""
    out: dict[str, int] = {}
    for lf in leaves(menu.choices, advance=menu.advance):
        cmd = lf.choice.command
        if lf.choice.dice is not None:
            cmd = sample_command(lf.choice.dice, list(die_types.get(lf.choice.dice.die, range(1, 7))))
        if cmd is not None:
            out[cmd.type] = min(out.get(cmd.type, lf.presses), lf.presses)
    return out
