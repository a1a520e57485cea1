"""Thunder Road — ``evolve``: one event folded into the state.

A plain switch on the event type: each event says what happened and the fold writes it down; nothing here
decides anything.  The consequences the rules draw (the Fire die due, the next turn, the end of the round,
the winner) are events of their own, decided by :mod:`games.thunder_road.consequences`.

The one exception is the old log.  A game whose ``game_started`` has no ``events`` version (version 1,
written before the consequences were events) holds only the commands' events; for such a log ``evolve``
draws the consequences itself after each event, with the same ``consequences.follow_up`` that ``decide``
uses, so the old game folds as it was played.  Its ``assignment_refused`` events (a refusal used to be
recorded) fold to nothing.
"""

from __future__ import annotations

from dataclasses import replace

from games.core import Event

from games.thunder_road.common import (
    dice_words,
    nitro_bonus,
    remove_die,
    replace_player,
    replace_vehicle,
    vehicle_words,
)
from games.thunder_road.consequences import CONSEQUENCES, Draft, follow_up
from games.thunder_road.setup import initial
from games.thunder_road.state import COAST_SPACES, Bump, FireEffect, Step, ThunderRoadState, Turn

#: Events of version-1 logs that no longer exist: a refused assignment was recorded (it is a plain refusal now).
RETIRED = ("assignment_refused",)


def evolve(state: ThunderRoadState | None, event: Event) -> ThunderRoadState:
    if event.type == "game_started":
        return initial(event.data)
    if state is None:
        raise ValueError(f"the log must begin with game_started, not {event.type}")
    after = _fold(state, event)
    if after.log_version == 1 and event.type not in CONSEQUENCES:
        draft = Draft(after, _fold)  # an old log: the consequences were left implicit
        follow_up(draft, event)
        after = draft.state
    if event.type not in CONSEQUENCES and event.type not in RETIRED:  # a command's own: its news (or none)
        news = _news(state, after, event) if event.type in NEWS_EVENTS else ""
        if news or after.news:
            after = replace(after, news=news)
    if after.step is Step.GAME_OVER and state is not None and state.step is not Step.GAME_OVER:
        # how the race was won, told on every screen after what the decision did ("… eliminated with the rear
        # tile"): it was only in the headers ("Eve wins"), nothing said how (a screens walkthrough).  (Here, not in
        # race_won's fold: a log from before the consequences were events folds them inside the command's event.)
        after = replace(after, news="; ".join(s for s in (after.news, after.note) if s))
    return after


#: The events with news for every screen: those that can eliminate a vehicle or put one out of service, set one
#: on fire, or are a command another player's screen should know of.  The others have none (and the menus fold
#: every choice they offer: a look at every vehicle after each doubled a 19-vehicle move's menu time).
NEWS_EVENTS = {"board_scrolled": " with the rear tile", "fire_rolled": " by fire", "damaged": "", "ignited": "",
               "command_used": "", "ruled_out": " by the table's ruling", "bump_rolled": "", "bump_rerolled": ""}

#: A Fire die's result as every screen is told it ("the results can add moves, put the fire out, or eliminate the
#: vehicle" [seed]); an elimination is told as one.
FIRE_NEWS = {FireEffect.OUT: "the fire is out", FireEffect.NOTHING: "no effect, still burning",
             FireEffect.UNKNOWN: "not filled in: the table rules on it"}


def _news(before: ThunderRoadState, after: ThunderRoadState, event: Event) -> str:
    """What every screen is told of a command: the vehicles it eliminated (an X in their owner's column was all)
    and those it put out of service, then a scroll of the road with the tile that leads now; a vehicle set on
    fire, a Fire die's result; a command used (a Repair says the car and its damage).  Only the owner's screen
    showed these, or nothing did."""
    d = event.data
    if event.type == "ignited":
        return f"{vehicle_words(after, d['vehicle'])} is ON FIRE!"
    if event.type in ("bump_rolled", "bump_rerolled"):
        # the reading the table places by, on every screen: the other vehicle's owner saw "bumps 1" and no die (a
        # screens walkthrough), and a re-roll's result nowhere but the mover's title bar
        b = after.bumps[0]
        rolled = "re-rolled" if event.type == "bump_rerolled" else "rolled"
        return (f"Bump of {vehicle_words(after, b.a)} and {vehicle_words(after, b.b)}: {rolled} bump die {d['bump']}, "
                f"direction die {d['direction']}")
    if event.type == "command_used":
        rule = after.tables.command(d["command"])
        used = f"{d['player']}: {rule.label}"
        if "vehicle" in d and rule.name == "repair":
            vid = d["vehicle"]
            used += f", {vehicle_words(after, vid)} {after.vehicle(vid).damage} damage"
            if before.out_of_service(vid) and not after.out_of_service(vid):
                used += ", back in service"
        if rule.target == "none" and rule.board == "command_board":
            # a command whose effect the companion does not track (commands.toml: the table resolves it; the Big
            # Rig's Traction Drive, "none" too, is tracked: its Road die): its news said only "Ana: Airstrike", and
            # nothing asked for the hit (a screens review)
            used += ", the table resolves it; its damage goes in with Damage…"
        return used
    touched = list(d.get("eliminated", ())) if event.type == "board_scrolled" else [d["vehicle"]]
    gone = [v for v in touched if after.vehicle(v).eliminated and not before.vehicle(v).eliminated]
    out = [v for v in touched if after.out_of_service(v) and not before.out_of_service(v)]
    why = NEWS_EVENTS[event.type]
    said = []
    if gone:
        said.append(f"{', '.join(vehicle_words(after, v) for v in gone)} eliminated{why}")
    if out:
        said.append(f"{', '.join(vehicle_words(after, v) for v in out)} out of service")
    if event.type == "damaged" and not gone and not out and not d["on_fire"]:
        # a token that put nothing out of service was said on no screen but the sender's: its owner saw one square
        # fill in a row of them (an audit)
        vid = d["vehicle"]
        slots = after.kind_of(vid).damage_slots
        said.append(f"{vehicle_words(after, vid)}: damage {after.vehicle(vid).damage} of {slots if slots else '?'}")
    if event.type == "damaged" and d["on_fire"] and not gone:
        said.append(f"{vehicle_words(after, d['vehicle'])} is ON FIRE!")
    if event.type == "fire_rolled" and not gone:
        effect = FireEffect(d["effect"])
        n = d["moves"]
        result = f"+{n} move{'' if n == 1 else 's'}, still burning" if effect is FireEffect.MOVES else FIRE_NEWS[effect]
        ruled = " ruled" if d.get("ruled") else ""  # the table's ruling on a face not filled in
        said.append(f"Fire die for {vehicle_words(after, d['vehicle'])}: {d['face']}{ruled}, {result}")
    if event.type == "board_scrolled":
        # every scroll, not only one that eliminates (after what it eliminated): the Finish line is offered once
        # the final tile leads, and a scroll pressed twice (or never entered) was on no screen
        final = ", the final tile" if after.board.lead_is_final else ""
        said.append(f"Road scrolled: lead tile {d['lead']}{final}")
    return "; ".join(said)


def _fold(state: ThunderRoadState, event: Event) -> ThunderRoadState:
    d = event.data
    t = event.type

    if t == "dice_rolled":
        state = replace_player(state, d["player"], dice=tuple(d["dice"]), rolled=True)
        if "first" in d:
            state = replace(state, first=state.player(d["first"]).seat)
        return replace(state, note=f"{d['player']} rolled {dice_words(d['dice'])}")

    if t == "die_assigned":
        p = state.player(d["player"])
        state = replace_player(state, p.name, dice=remove_die(p.dice, d["die"]))
        state = replace_vehicle(state, d["vehicle"], moved=True)
        turn = state.turn
        assert turn is not None
        return replace(
            state,
            step=Step.MOVE,
            turn=replace(turn, action="move", vehicle=d["vehicle"], die=d["die"], allowance=d["die"] + turn.bonus),
            note=f"{vehicle_words(state, d['vehicle'])} moves {d['die']}",
        )

    if t == "coasted":
        p = state.player(d["player"])
        v = state.vehicle(d["vehicle"])
        state = replace_player(state, p.name, dice=remove_die(p.dice, d["die"]))
        state = replace_vehicle(state, v.id, coasts=v.coasts + 1)
        assert state.turn is not None
        return replace(
            state,
            step=Step.MOVE,
            turn=replace(state.turn, action="coast", vehicle=v.id, die=d["die"], allowance=COAST_SPACES),
            note=f"{vehicle_words(state, v.id)} coasts 1 ({v.coasts + 1}/2)",
        )

    if t == "fire_roll_required":
        return replace(state, step=Step.FIRE)

    if t == "command_used":
        p = state.player(d["player"])
        rule = state.tables.command(d["command"])
        state = replace_player(state, p.name, dice=remove_die(p.dice, d["die"]))
        if rule.board == "command_board":
            state = replace_player(state, p.name, command=rule.name)
        turn = state.turn
        assert turn is not None
        turn = replace(turn, commands=turn.commands + (rule.name,))
        if rule.name == "nitro":
            if "adds_moves" in d:
                bonus, known = d["adds_moves"] or 0, d["adds_moves"] is not None
            else:  # version 1 did not record it: the table the game started with says
                bonus, known = nitro_bonus(state, d["die"])
            turn = replace(
                turn,
                bonus=turn.bonus + bonus,
                allowance=None if turn.allowance is None else turn.allowance + bonus,
                allowance_known=turn.allowance_known and known,
            )
        note = f"{p.name}: {rule.label} ({d['die']})"
        if "vehicle" in d and rule.name == "repair":
            v = state.vehicle(d["vehicle"])
            state = replace_vehicle(state, v.id, damage=v.damage - 1)
            note = f"{vehicle_words(state, v.id)} repaired: {v.damage - 1} damage"
        return replace(state, turn=turn, note=note)

    if t == "passed":
        state = replace_player(state, d["player"], passed=True)
        return replace(state, note=f"{d['player']} passes for the rest of the round")

    if t == "turn_ended":  # a command turn: no coast with it, the dice left wait for the next turn
        return replace(state, note=f"{d['player']} ends the turn (a command turn cannot coast)")

    if t == "fire_rolled":
        vid = d["vehicle"]
        effect = FireEffect(d["effect"])
        turn = state.turn
        assert turn is not None
        if effect is FireEffect.UNKNOWN:
            return replace(
                state, step=Step.FIRE_RULING, turn=replace(turn, fire_face=d["face"]),
                note=f"Fire die: {d['face']} is not filled in",
            )
        turn = replace(turn, fire_face=None)
        if effect is FireEffect.ELIMINATE:
            state = replace_vehicle(state, vid, eliminated=True, on_fire=False)
            return replace(state, turn=turn, note=f"{vehicle_words(state, vid)} burns out: eliminated")
        if effect is FireEffect.OUT:
            state = replace_vehicle(state, vid, on_fire=False)
            return replace(state, step=Step.MOVE, turn=turn, note=f"{vehicle_words(state, vid)}: the fire is out")
        if effect is FireEffect.MOVES:
            turn = replace(turn, allowance=(turn.allowance or 0) + d["moves"])
            return replace(state, step=Step.MOVE, turn=turn, note=f"Fire die: +{d['moves']} moves")
        return replace(state, step=Step.MOVE, turn=turn, note="Fire die: no effect, still burning")

    if t == "vehicle_met":
        turn = state.turn
        assert turn is not None
        return replace(state, turn=replace(turn, met=turn.met + ((d["at"], d["vehicle"]),)),
                       note=f"{vehicle_words(state, d['mover'])} met {vehicle_words(state, d['vehicle'])} at space {d['at']}")

    if t == "moved":
        bumps = tuple(Bump(d["vehicle"], hit) for hit in d["collisions"])
        note = f"{vehicle_words(state, d['vehicle'])} moved {d['spaces']}"
        if d.get("passed"):
            note += f", drifted past {vehicle_words(state, d['passed'])}"
        if bumps:
            return replace(state, step=Step.BUMP, bumps=bumps, note=note + f": {len(bumps)} bump(s)")
        return replace(state, note=note)

    if t == "rear_named":
        turn = state.turn
        assert turn is not None
        return replace(state, turn=replace(turn, off_rear=turn.off_rear + (d["vehicle"],)),
                       note=f"{vehicle_words(state, d['vehicle'])} is on the rear tile the scroll removes")

    if t == "ruled_out":
        state = replace_vehicle(state, d["vehicle"], eliminated=True, on_fire=False)
        return replace(state, note=f"{vehicle_words(state, d['vehicle'])} is out of the race (the table's ruling)")

    if t == "board_scrolled":
        for vid in d["eliminated"]:
            # out of the race, its fire with it (as the Fire die's "eliminate"): a burning wreck stood on the screens
            state = replace_vehicle(state, vid, eliminated=True, on_fire=False)
        if state.turn is not None and state.turn.off_rear:
            state = replace(state, turn=replace(state.turn, off_rear=()))
        board = replace(state.board, lead=state.board.lead + 1)
        if state.step is Step.PLACE:  # a vehicle the bump dice moved off the front: it is placed on the new lead tile
            state = replace(state, bumps=(replace(state.bumps[0], scrolled=True),) + state.bumps[1:])
        gone = ", ".join(vehicle_words(state, vid) for vid in d["eliminated"]) or "nobody"
        return replace(state, board=board, note=f"road scrolled: tile {d['lead']} leads; eliminated: {gone}")

    if t == "finished":
        return replace(state, note=f"{vehicle_words(state, d['vehicle'])} crossed the finish line")

    if t == "bump_rolled":
        b = state.bumps[0]
        return replace(
            state, step=Step.PLACE, bumps=(replace(b, roll=(d["bump"], d["direction"])),) + state.bumps[1:],
            note=f"bump: {d['bump']}, direction {d['direction']}",
        )

    if t == "bump_rerolled":
        b = state.bumps[0]
        return replace(
            state, bumps=(replace(b, roll=(d["bump"], d["direction"]), rerolled=True),) + state.bumps[1:],
            note=f"re-roll: {d['bump']}, direction {d['direction']}",
        )

    if t == "bump_placed":
        rest = state.bumps[1:]
        if d["onto"] is not None:
            rest = (Bump(d["moved"], d["onto"]),) + rest  # a chain bump is resolved next
        note = f"{vehicle_words(state, d['moved'])} placed" + (
            f" on {vehicle_words(state, d['onto'])}: chain bump" if d["onto"] else "")
        return replace(state, step=Step.BUMP if rest else state.step, bumps=rest, note=note)

    if t == "damaged":
        v = state.vehicle(d["vehicle"])
        state = replace_vehicle(state, v.id, damage=v.damage + 1, on_fire=v.on_fire or d["on_fire"])
        note = f"{vehicle_words(state, v.id)} damaged ({v.damage + 1})" + (" ON FIRE!" if d["on_fire"] else "")
        if state.out_of_service(v.id):
            note += ": out of service"
        return replace(state, note=note)

    if t == "ignited":
        state = replace_vehicle(state, d["vehicle"], on_fire=True)
        return replace(state, note=f"{vehicle_words(state, d['vehicle'])} is ON FIRE!")

    if t == "road_rolled":
        return replace(state, road_roll=(d["vehicle"], d["face"]), note=f"Road die: {d['face']}")

    if t == "turn_started":
        return replace(state, step=Step.TURN, turn=Turn(d["player"]), bumps=(), road_roll=None)

    if t == "round_ended":
        players = tuple(replace(p, dice=(), rolled=False, command=None, passed=False) for p in state.players)
        vehicles = tuple(replace(v, moved=False, coasts=0) for v in state.vehicles)
        return replace(
            state, players=players, vehicles=vehicles, round=d["round"] + 1, step=Step.ROLL, turn=None,
            bumps=(), road_roll=None,
        )

    if t == "race_won":
        winner = d["player"]
        if winner is None:
            note = "no player is left standing"
        elif d["reason"] == "finish_line":
            note = f"{winner} crossed the finish line and wins"
        elif d["reason"] == "last_standing":
            note = f"{winner} is the last player standing and wins"
        else:
            note = f"{winner} wins"
        return replace(state, step=Step.GAME_OVER, winner=winner, turn=None, bumps=(), note=note)

    if t in RETIRED:
        return state

    raise ValueError(f"unknown event {t!r}")
