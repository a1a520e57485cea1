"""What each side's 128×64 screen shows: its box, its race VP, its active abilities, the attempts it has
left this turn and the odds of its next attempt."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from games.core import Alert, Event
from games.space_race.state import BINDS_OPPONENT, SIDES, SpaceRaceState, Step

#: the reminder every prompt and screen carries when a card is played to the race (rule 6.4.5)
NO_EVENT = "a card played to the Space Race triggers no event: discard it"
#: An event's advance entered with no VP (``event_advance`` with ``vp = false``), in the news and the timeline.
NO_VP = "no VP, as the event says"


@dataclass(frozen=True)
class SideView:
    """One side's screen (``player`` is the side: the screens are keyed by it)."""

    player: str
    side: str
    opponent: str
    box: int
    box_name: str
    opponent_box: int
    vp: int
    opponent_vp: int
    abilities: tuple[str, ...]
    attempts_left: int
    next_box: int | None
    next_name: str | None
    next_ops: int | None
    next_roll: str | None
    #: chance in percent that the next attempt succeeds (rounded), None after the last box
    odds_percent: int | None
    turn: int
    step: str
    your_die: bool
    finished: bool
    prompt: str
    note: str = ""
    alerts: tuple[Alert, ...] = field(default_factory=tuple)
    #: the abilities' keys (``state.ABILITIES``), in the order of ``abilities`` (their words, the edition's)
    ability_keys: tuple[str, ...] = ()
    #: the rival's abilities that bind this side (``state.BINDS_OPPONENT``: "opponent reveals their headline
    #: first" is this side's to act on), by key
    rival_ability_keys: tuple[str, ...] = ()
    #: what the last decision settled that both sides are told (``SpaceRaceState.news``)
    news: str = ""
    #: the other side's die awaited ("USSR rolls for box 1"): this side's screen said nothing of it (an audit)
    rival_rolls: str = ""


def build_views(state: SpaceRaceState, prompt_text: str) -> tuple[SideView, ...]:
    out = []
    for name in SIDES:
        side = state.side(name)
        other = state.opponent(name)
        nxt = state.next_box(name)
        rival_next = state.next_box(other.name)
        alerts: list[Alert] = []
        if state.pending is not None and state.pending.side == name:
            alerts.append(Alert("roll_die", f"roll the d6: {nxt.roll_text if nxt else '-'} succeeds", name))
        if state.pending is not None:
            alerts.append(Alert("no_event", NO_EVENT, None))
        out.append(
            SideView(
                player=name,
                side=name,
                opponent=other.name,
                box=side.box,
                box_name=state.box(side.box).name if side.box else "start",
                opponent_box=other.box,
                vp=side.vp,
                opponent_vp=other.vp,
                abilities=tuple(b.ability_text for b in state.active_abilities(name)),
                ability_keys=tuple(b.ability for b in state.active_abilities(name) if b.ability),
                rival_ability_keys=tuple(b.ability for b in state.active_abilities(other.name)
                                         if b.ability in BINDS_OPPONENT),
                attempts_left=state.attempts_left(name),
                next_box=nxt.number if nxt else None,
                next_name=nxt.name if nxt else None,
                next_ops=nxt.ops if nxt else None,
                next_roll=nxt.roll_text if nxt else None,
                odds_percent=round(float(nxt.odds) * 100) if nxt else None,
                turn=state.turn,
                step=(Step.AWAIT_DIE if state.pending else Step.TURN if state.in_turn else Step.BETWEEN_TURNS).value,
                your_die=state.pending is not None and state.pending.side == name,
                finished=nxt is None,
                prompt=prompt_text,
                note=state.note,
                alerts=tuple(alerts),
                news=state.news,
                rival_rolls=(f"{other.name} rolls for box {rival_next.number}" if rival_next is not None and
                             state.pending is not None and state.pending.side == other.name else ""),
            )
        )
    return tuple(out)


# -- the game log's words (device/web/timeline.py) ------------------------------------------------------


def timeline_heading(state: SpaceRaceState) -> str:
    """Where the race was, as the game log heads its decisions: the turn (between turns, the one about to
    begin: its ``begin_turn`` and any event played before it)."""
    return f"Turn {state.turn if state.in_turn else state.turn + 1}"


def timeline_words(event: Event) -> str | None:
    """The race's set-up in a few words (the edition and its track, not the track's table), and each turn's card,
    roll and advance as the rules say them ("USSR rolls 2 for box 1: success", not "die rolled: 2, box 1, success
    yes"); None for any other event."""
    d = event.data
    if event.type == "turn_begun":
        return f"Turn {d.get('turn')} begins"
    if event.type == "turn_ended":
        return f"Turn {d.get('turn')} ends"
    if event.type == "card_played":
        return f"{d.get('side')} plays a card of {d.get('ops')} Ops on the Space Race"
    if event.type == "attempt_granted":
        return f"{d.get('side')}: an event grants a Space Race attempt"
    if event.type == "die_rolled":
        return f"{d.get('side')} rolls {d.get('die')} for box {d.get('box')}: {'success' if d.get('success') else 'failure'}"
    if event.type == "advanced":
        by = {"roll": "", "event": " by an event"}.get(str(d.get("cause")), f" ({d.get('cause')})")
        vp = NO_VP if d.get("unscored") else f"{d.get('vp')} VP"
        return f"{d.get('side')} reaches box {d.get('box')}{by}, {d.get('arrival')}: {vp}"
    if event.type == "race_set":
        track = [b for b in event.data["track"] if isinstance(b, Mapping)]
        ends = f" ({track[0]['name']} to {track[-1]['name']})" if track and "name" in track[0] else ""
        return f"Space Race set: {str(event.data['edition']).capitalize()} edition, {len(track)} boxes{ends}"
    return None
