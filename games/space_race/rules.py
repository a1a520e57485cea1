"""Twilight Struggle Space Race track (rules 6.4, shared/seeds/003): the rules as pure functions.

Turns are modelled the way the table lives them: ``begin_turn`` opens a game turn (every side's attempt
count starts again), ``attempt`` plays a card to the race, ``roll`` gives the d6 (read by the camera or
typed; ``attempt`` may carry it directly), ``end_turn`` closes the turn.  Two more commands cover the
seed's "events that say so" (6.4.2): ``grant_attempt`` (an event allows one more attempt this turn) and
``event_advance`` (an event moves a marker one box, scored as usual, or with ``vp = false`` for no VP: the
table's entry for an event that says it scores only the last box it moves into, a box passed on the way).

Why the ability bookkeeping is derived rather than stored: an ability belongs to the first player to reach
its box and ends the moment the opponent reaches it (6.4.4), so "active" is a pure function of who arrived
first and where the opponent stands.  Storing it separately would be a second truth that undo could split.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import replace
from importlib import resources
from typing import Any

from games.core import Command, Decision, Event, Illegal, Menu, Prompt, fields
from games.space_race.state import ABILITIES, AT_TURN_END, AT_TURN_START, SIDES, Box, Pending, Side, SpaceRaceState
from games.space_race.views import NO_EVENT, NO_VP, SideView, build_views, timeline_heading, timeline_words

TRACK_BOXES = 8
MAX_OPS = 4  # no Twilight Struggle card is worth more than 4 operations, modifiers included
MAX_VP = 20  # the most VP a box may give (the printed track gives at most 4)
BOX_KEYS = ("number", "name", "ops", "roll", "vp", "ability", "ability_text", "named_by_seed")


def load_track_data() -> dict[str, Any]:
    """The packaged track editions (``data/track.toml``)."""
    with resources.files("games.space_race").joinpath("data/track.toml").open("rb") as fh:
        return tomllib.load(fh)


def _ability_words(ability: str | None) -> str:
    """The packaged Deluxe track's words for ``ability`` ("" for none)."""
    if ability is None:
        return ""
    boxes = load_track_data()["editions"]["deluxe"]["box"]
    return next((str(b.get("ability_text", "")) for b in boxes if b.get("ability") == ability), ability.replace("_", " "))


def _check_track(raw: Any, where: str, table: str) -> list[dict[str, Any]]:
    """Normalise one track table (a list of boxes) or raise Illegal naming the bad box.  ``table``: the
    TOML table one box is written as where the track comes from (``[[track]]`` in a setup)."""
    if not isinstance(raw, list) or len(raw) != TRACK_BOXES:
        given = f"{len(raw)} given" if isinstance(raw, list) else f"got {fields.show(raw)}"
        raise Illegal(f"{where}: the Space Race track has {TRACK_BOXES} boxes; write {TRACK_BOXES} {table} tables, "
                      f"one per box ({given})")
    out = []
    for i, box in enumerate(raw, start=1):
        if not isinstance(box, Mapping):
            raise Illegal(f"{where}: box {i} must be a table with number, name, ops, roll, vp")
        fields.only_keys(box, BOX_KEYS, f"{where} box {i}")
        try:
            number, ops = box["number"], box["ops"]
            low, high = box["roll"]
            vp = list(box.get("vp", []))
        except (KeyError, TypeError, ValueError) as exc:
            raise Illegal(f"{where}: box {i} needs number, name, ops, roll = [low, high] and vp = [first, second] or []") from exc
        if isinstance(number, bool) or number != i:
            raise Illegal(f"{where}: box {i} is numbered {fields.show(number)}; number the boxes 1 to {TRACK_BOXES} in order")
        if isinstance(ops, bool) or not isinstance(ops, int) or not 1 <= ops <= MAX_OPS:
            raise Illegal(f"{where}: box {i} needs ops between 1 and {MAX_OPS}, not {fields.show(ops)}")
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in (low, high)) or not 1 <= low <= high <= 6:
            raise Illegal(f"{where}: box {i} roll must be [low, high] within 1..6, not {fields.show(box['roll'])}")
        if vp and (len(vp) != 2 or not all(isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= MAX_VP for v in vp)):
            raise Illegal(f"{where}: box {i} vp must be [first, second] (whole numbers 0 to {MAX_VP}) or [] for none, "
                          f"not {fields.show(vp)}")
        ability = box.get("ability")
        if ability is not None and (not isinstance(ability, str) or ability not in ABILITIES):
            raise Illegal(f"{where}: box {i} ability {fields.show(ability)} is unknown; use one of {', '.join(ABILITIES)}, "
                          "or leave ability out for none")
        at = f"{where} box {i}"
        # an ability given without its words takes the packaged Deluxe track's (the note and the reminders said
        # "gains: " and the key "opponent_headline_first" to the table)
        text = fields.text(box, "ability_text", at, "", max_len=300, empty=True) or _ability_words(ability)
        out.append(
            {"number": i, "name": fields.text(box, "name", at, max_len=60), "ops": ops, "roll": [low, high], "vp": vp,
             "ability": ability, "ability_text": text}
        )
    return out


def _box(raw: Mapping[str, Any]) -> Box:
    vp = raw["vp"]
    return Box(
        number=raw["number"], name=raw["name"], ops=raw["ops"], roll_low=raw["roll"][0], roll_high=raw["roll"][1],
        vp_first=vp[0] if vp else None, vp_second=vp[1] if vp else None,
        ability=raw.get("ability"), ability_text=raw.get("ability_text", ""),
    )


def _side_name(raw: Any) -> str:
    if isinstance(raw, str):
        for s in SIDES:
            if raw.strip().upper() == s:
                return s
    raise Illegal(f'side must be "USA" or "USSR", not {fields.show(raw)}')


def _int(command: Command, key: str, what: str) -> int:
    value = command.get(key)
    if not isinstance(value, int) or isinstance(value, bool):
        raise Illegal(f'{command.type} needs "{key}": {what} (got {fields.show(value)})')
    return value


#: The keys of a setup file's top level.
SETUP_KEYS = ("edition", "track")


class SpaceRaceGame:
    """The game object the core drives (see ``games.core.Game``)."""

    name = "space_race"
    #: each command → the fields it takes (the README's vocabulary; ``undo`` is the core's).  A command with
    #: any other field is refused, naming it (:func:`games.core.match.check_fields`).
    commands: Mapping[str, tuple[str, ...]] = {
        "begin_turn": (),
        "attempt": ("side", "ops", "die"),
        "roll": ("die",),
        "grant_attempt": ("side",),
        "event_advance": ("side", "vp"),
        "end_turn": (),
    }

    # -- start ---------------------------------------------------------------------------------------------
    def start(self, options: Mapping[str, Any]) -> Sequence[Event]:
        if not isinstance(options, Mapping):
            raise Illegal("the setup must be a table (TOML) with an optional edition = \"deluxe\" or \"seed\"")
        fields.plain(options, "setup")
        if "players" in options:  # not another game's setup: the two sides play, and they have no names to give
            raise Illegal("setup: Space Race has no players to name: the two sides are the USSR and the USA; "
                          "leave out [[players]]")
        fields.only_keys(options, SETUP_KEYS, "setup")
        data = load_track_data()
        editions = data["editions"]
        edition = fields.text(options, "edition", "setup", data.get("default", "deluxe"), what="an edition name", max_len=40)
        if "track" in options:
            track = _check_track(options["track"], "setup: [track]", "[[track]]")
            edition = fields.text(options, "edition", "setup", "owner", what="an edition name", max_len=40)
        else:
            if edition not in editions:
                raise Illegal(f"edition {edition!r} is unknown; choose one of {', '.join(sorted(editions))} or give your own track")
            track = _check_track(editions[edition]["box"], f"track.toml edition {edition}", f"[[editions.{edition}.box]]")
        return [Event("race_set", {"edition": edition, "track": track})]

    # -- evolve --------------------------------------------------------------------------------------------
    def evolve(self, state: SpaceRaceState | None, event: Event) -> SpaceRaceState:
        d = event.data
        if event.type == "race_set":
            return SpaceRaceState(
                edition=d["edition"],
                track=tuple(_box(b) for b in d["track"]),
                sides=(Side(SIDES[0]), Side(SIDES[1])),
            )
        if state is None:
            raise ValueError(f"{event.type} before race_set")
        if state.news:
            state = replace(state, news="")  # told once: the next event has its own (or none)
        if event.type == "turn_begun":
            reminders = state.reminders(AT_TURN_START)
            return replace(
                state, turn=d["turn"], in_turn=True, last_roll=None,
                sides=tuple(replace(s, used=0, granted=0) for s in state.sides),  # type: ignore[arg-type]
                note="; ".join([f"turn {d['turn']} begun", *reminders]), news="; ".join(reminders),
            )
        if event.type == "turn_ended":
            reminders = state.reminders(AT_TURN_END)
            return replace(state, in_turn=False, note="; ".join([f"turn {d['turn']} ended", *reminders]),
                           news="; ".join(reminders))
        if event.type == "card_played":
            sides = tuple(replace(s, used=s.used + 1) if s.name == d["side"] else s for s in state.sides)
            return replace(state, sides=sides, pending=Pending(d["side"], d["ops"]), last_roll=None,  # type: ignore[arg-type]
                           note=f"{d['side']} played a {d['ops']}-ops card to the race: {NO_EVENT}")
        if event.type == "die_rolled":
            verdict = "success" if d["success"] else "failure"
            after = replace(state, pending=None, note=f"{d['side']} rolled {d['die']} for box {d['box']}: {verdict}",
                            last_roll=(d["side"], d["die"], bool(d["success"])))
            if d["success"]:
                return after  # its advance tells both screens
            # a failure told on both screens, with the attempts left: a side with a second attempt (box 2) failing
            # its first saw its screen as before the card, and the result nowhere (a screens walkthrough)
            left = after.attempts_left(d["side"])
            more = f" · {left} attempt{'' if left == 1 else 's'} left" if left else ""
            return replace(after, news=f"{d['side']} rolls {d['die']} for box {d['box']}: failure{more}")
        if event.type == "attempt_granted":
            # one more attempt than made, whatever the turn took away before it: a side that had made both of box
            # 2's attempts, then lost the ability to the opponent's arrival, was told "may make one more attempt"
            # and refused it, the grant spent on the cancelled attempt (a rules audit)
            side = state.side(d["side"])
            granted = max(side.granted + 1, side.used + 1 - state.base_allowance(side.name))
            sides = tuple(replace(s, granted=granted) if s.name == d["side"] else s for s in state.sides)
            # the last roll's verdict gives the menu's line back to the attempts: the other side's extra attempt was
            # on no screen while the verdict of the side with none left stood (a walkthrough)
            return replace(state, sides=sides, note=f"{d['side']} may make one more attempt this turn",  # type: ignore[arg-type]
                           last_roll=None)
        if event.type == "advanced":
            sides = tuple(
                replace(s, box=d["box"], vp=s.vp + d["vp"]) if s.name == d["side"] else s for s in state.sides
            )
            firsts = state.first_arrivals
            if d["arrival"] == "first":
                firsts = firsts + ((d["box"], d["side"]),)
            box = state.box(d["box"])
            # a box that scores says its 0 VP too ("USA reached box 3 Man in Space second" left the question open)
            note = f"{d['side']} reached {box.label} {d['arrival']}" + (
                f": +{d['vp']} VP" if d["vp"] else f": {NO_VP}" if d.get("unscored") else
                ": 0 VP" if box.vp_first is not None else "")
            # whose ability, in words naming the sides ("gains: opponent reveals their headline first" named
            # nobody, and "cancels USSR's may discard one held card…" did not parse: a walkthrough)
            if box.ability and d["arrival"] == "first":
                note += f"; {d['side']} gains: {state.ability_words(d['side'], box)}"
            elif box.ability:
                holder = state.opponent(d["side"]).name
                note += f"; {holder}'s box {box.number} ability ends ({state.ability_words(holder, box)})"
            # told on both screens: the box's name, first or second, its VP (a side's VP is on its own screen alone,
            # and only once the menu has gone) and an ability gained or cancelled
            return replace(state, sides=sides, first_arrivals=firsts, note=note, news=note)  # type: ignore[arg-type]
        raise ValueError(f"unknown event {event.type!r}")

    # -- decide --------------------------------------------------------------------------------------------
    def decide(self, state: SpaceRaceState, command: Command) -> Decision:
        fields.plain(command.args, command.type)
        kind = command.type
        if kind == "begin_turn":
            self._no_pending(state, "the next turn")  # "end_turn first" would be refused the same way
            if state.in_turn:
                raise Illegal(f"turn {state.turn} is still on: end_turn first")
            return Decision((Event("turn_begun", {"turn": state.turn + 1}),))
        if kind == "end_turn":
            self._no_pending(state, kind)
            if not state.in_turn:
                raise Illegal("no turn is on: begin_turn first")
            return Decision((Event("turn_ended", {"turn": state.turn}),))
        if kind == "attempt":
            return self._attempt(state, command)
        if kind == "roll":
            if state.pending is None:
                raise Illegal("no card is waiting for its die: attempt {side, ops} first")
            die = _int(command, "die", "the d6 result, 1 to 6")
            return Decision(tuple(self._resolve(state, state.pending.side, die)))
        if kind == "grant_attempt":
            self._no_pending(state, kind)
            side = _side_name(command.get("side"))
            if not state.in_turn:
                raise Illegal("no turn is on: begin_turn first")
            if state.next_box(side) is None:
                raise Illegal(f"{side} has reached the last box and may not play cards to the Space Race for the rest of the game")
            return Decision((Event("attempt_granted", {"side": side}),))
        if kind == "event_advance":
            self._no_pending(state, kind)
            side = _side_name(command.get("side"))
            nxt = state.next_box(side)
            if nxt is None:
                raise Illegal(f"{side} is on the last box: there is no box to advance to")
            scored = command.get("vp", True)
            if not isinstance(scored, bool):
                raise Illegal(f"vp={fields.show(scored)}: true (the box's VP, as usual) or false (no VP: an event that "
                              "scores only the last box it moves into, for a box it passes)")
            return Decision((self._advance(state, side, nxt, "event", scored=scored),))
        raise Illegal(
            f"unknown command {kind!r}; the Space Race knows begin_turn, attempt, roll, end_turn, grant_attempt, event_advance, undo"
        )

    @staticmethod
    def _no_pending(state: SpaceRaceState, kind: str) -> None:
        if state.pending is not None:
            raise Illegal(f"{state.pending.side}'s card is waiting for its die: roll the d6 before {kind}")

    def _attempt(self, state: SpaceRaceState, command: Command) -> Decision:
        self._no_pending(state, "another attempt")
        side = _side_name(command.get("side"))
        if not state.in_turn:
            raise Illegal("no turn is on: begin_turn first")
        nxt = state.next_box(side)
        if nxt is None:
            raise Illegal(f"{side} has reached the last box and may not play cards to the Space Race for the rest of the game")
        if state.attempts_left(side) == 0:
            raise Illegal(self._no_attempt_left(state, side))
        ops = _int(command, "ops", f"the operations value of the card, 1 to {MAX_OPS}")
        if not 1 <= ops <= MAX_OPS:
            raise Illegal(f"a card's operations value is 1 to {MAX_OPS}, not {ops}")
        if ops < nxt.ops:
            # whose card (a refusal is on both screens), and the menu's "Ops" (a walkthrough)
            raise Illegal(f"{side}: {nxt.label} needs a card of {nxt.ops} Ops or more; a {ops}-Ops card "
                          "cannot try it")
        events = [Event("card_played", {"side": side, "ops": ops})]
        if command.get("die") is not None:
            events += self._resolve(state, side, _int(command, "die", "the d6 result, 1 to 6"))
        return Decision(tuple(events))

    @staticmethod
    def _no_attempt_left(state: SpaceRaceState, side: str) -> str:
        """The refusal of one attempt too many, with the rule behind the count (6.4.2, 6.4.4)."""
        allowed, me = state.allowance(side), state.side(side)
        two = next((b for b in state.track if b.ability == "two_attempts"), None)
        if two is not None and state.holds(side, "two_attempts"):
            why = [f"two with {two.label}"]
        else:
            why = ["one card per turn for the Space Race"]
            if two is not None and state.first_to(two.number) == side:
                why.append(f"{state.opponent(side).name} reached {two.label} too: "
                           f"{side}'s two attempts are cancelled")
        if me.granted:
            why.append(f"{me.granted} more by an event")
        if me.used > allowed:  # the ability that gave the second was cancelled after it was made
            return (f"{side} has made {me.used} Space Race attempts this turn; {allowed} "
                    f"{'is' if allowed == 1 else 'are'} allowed now ({'; '.join(why)})")
        return (f"{side} has made {me.used} of {allowed} Space Race attempt{'s' if allowed > 1 else ''} allowed "
                f"this turn ({'; '.join(why)})")

    def _resolve(self, state: SpaceRaceState, side: str, die: int) -> list[Event]:
        if not 1 <= die <= 6:
            raise Illegal(f"a d6 shows 1 to 6, not {die}")
        nxt = state.next_box(side)
        assert nxt is not None
        success = nxt.succeeds(die)
        events = [Event("die_rolled", {"side": side, "die": die, "box": nxt.number, "success": success})]
        if success:
            events.append(self._advance(state, side, nxt, "roll"))
        return events

    @staticmethod
    def _advance(state: SpaceRaceState, side: str, box: Box, cause: str, *, scored: bool = True) -> Event:
        first = state.opponent(side).box < box.number
        vp = (box.vp_first if first else box.vp_second) or 0
        data = {"side": side, "box": box.number, "vp": vp if scored else 0,
                "arrival": "first" if first else "second", "cause": cause}
        return Event("advanced", data if scored else {**data, "unscored": True})

    # -- prompt and views ----------------------------------------------------------------------------------
    def prompt(self, state: SpaceRaceState) -> Prompt:
        """What the table does next; ``commands`` lists the commands the rules accept now (an event's
        ``grant_attempt`` / ``event_advance`` only while some side is short of the last box), and
        ``GAME.menu`` offers each of them on the buttons."""
        if state.pending is not None:
            nxt = state.next_box(state.pending.side)
            assert nxt is not None
            return Prompt(
                text=f"{state.pending.side}: roll the d6 for {nxt.label} ({nxt.roll_text} succeeds); {NO_EVENT}",
                step="roll the d6", awaits="dice", player=state.pending.side, die="d6", count=1,
                commands=("roll", "undo"),
            )
        racing = any(state.next_box(s) is not None for s in SIDES)
        if not state.in_turn:
            return Prompt(text=f"begin turn {state.turn + 1} when the table starts it", step="between turns",
                          awaits="confirm",
                          commands=("begin_turn",) + (("event_advance",) if racing else ()) + ("undo",))
        able = tuple(s for s in SIDES if state.attempts_left(s) > 0)
        parts = []
        for s in SIDES:
            nxt = state.next_box(s)
            parts.append(f"{s} {state.attempts_left(s)} left" + (f" (box {nxt.number}: {nxt.ops}+ ops, {nxt.roll_text})" if nxt else " (done)"))
        return Prompt(
            text=f"turn {state.turn}: attempt with a card ({'; '.join(parts)}); {NO_EVENT}; or end the turn",
            step="turn", awaits="choice",
            commands=(("attempt",) if able else ()) + ("end_turn",)
            + (("grant_attempt", "event_advance") if racing else ()) + ("undo",),
        )

    def views(self, state: SpaceRaceState) -> Sequence[SideView]:
        return build_views(state, self.prompt(state).text)

    def menu(self, state: SpaceRaceState) -> Menu:
        """The button menu of this step (:mod:`games.space_race.menus`)."""
        from games.space_race.menus import menu

        return menu(state)

    # -- the game log's words (the phone's timeline, :mod:`device.web.timeline`) ---------------------------
    def timeline_heading(self, state: SpaceRaceState) -> str:
        """Where the table was before a decision, as the game log heads it: the turn."""
        return timeline_heading(state)

    def timeline_words(self, event: Event, names: Mapping[str, str] | None = None) -> str | None:
        """An event in the game's words for the game log (None: the log's plain reading will do); ``names``
        (vehicles' names by id) are not needed: this game's events say whom they name in words already."""
        return timeline_words(event)


GAME = SpaceRaceGame()
