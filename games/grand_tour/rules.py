"""Flamme Rouge — Grand Tour (the designer-approved unofficial variant, shared/seeds/004), as pure rules.

The table plays each stage with the base game; Pitboard keeps the tour sheet: stage points, the time
track, exhaustion carried over, the start order of the next stage and the optional specialties.

Input model (one command per thing the table sees):

- ``deal_specialties {team, cards}`` / ``keep_specialty {team, card, rider}`` before stage 1 when the
  specialties are on;
- ``finish_round {crossed: [{rider, squares}], pack}`` at the end of every round in which riders crossed
  the line, crossers in any order (kept in finishing order: farthest first, a tie in the order given),
  ``squares`` = squares travelled past the line, ``pack`` = all the
  crossers of this round form one unbroken chain;
- or, with the buttons, the same round one crosser at a time: ``cross {rider, squares}`` for each, in
  any order (as the riders move), then ``end_round {pack}``.  ``squares`` may follow on its own: ``cross {rider}`` names
  the crosser, then ``cross {squares}`` gives its squares (the way the button menus enter it: one short
  list of riders, then one short list of squares, rather than every rider × every square at once);
- ``exhaustion {rider, cards}`` between stages: the exhaustion cards the rider holds; half (rounded down)
  is discarded, the rest is kept.

Why the round's marker moves are computed in ``decide`` and stored in the event: the log then says where
every marker went and why (readable, exportable), and an old log replays as it was recorded even if the
move code is later corrected.

Ties (seed, "Ничьи"): "the rider who spent less time wins (except for deciding the final tour winner).
If two riders spent the same time, the one who finished the last stage better wins."  Applied as:

- best total time ranking (the final 3/2/1): less time, then better place in the last stage;
- equal tour points at the start line: the team that loses the tie (more time for its best rider, then
  worse last-stage place) places first, as "fewest points first" puts the weaker team first;
- the tour winner: most tour points; time is NOT a tie-break there (the seed's exception), so equal
  points go to the better place in the last stage;
- the final classification's other places (the screens' PLACE): most tour points, then as at the start line
  (less time for the team's best rider, then better last-stage place): the exception is the winner's alone.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import replace
from importlib import resources
from typing import Any

from games.core import Command, Decision, Event, Illegal, Menu, Prompt, fields
from games.grand_tour.state import (
    ROLES,
    SPECIALTIES_DEALT,
    GrandTourState,
    Phase,
    Rider,
    Scoring,
    Specialty,
    Team,
    best_rider,
    rider_label,
)
from games.grand_tour.timetrack import Marker, TimeTrack, finish_round
from games.grand_tour.views import TeamView, build_views, ordinal, timeline_heading, timeline_words

_TEAM_NAME = re.compile(r"^[a-z][a-z0-9_]{0,11}$")
#: the most exhaustion cards a rider may hold (a bound on typing errors, not a rule: with carry-over a tired
#: deck holds more than 20; 12 a stage: 12, keep 6, 18, keep 9, 21); the buttons offer up to 40 (menus.py)
MAX_EXHAUSTION = 60


def _load(name: str) -> dict[str, Any]:
    with resources.files("games.grand_tour").joinpath(f"data/{name}").open("rb") as fh:
        return tomllib.load(fh)


def load_tour_data() -> dict[str, Any]:
    return _load("tour.toml")


def load_specialty_data() -> list[dict[str, Any]]:
    return list(_load("specialties.toml")["card"])


def _whole(value: Any, what: str, low: int, high: int | None = None) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < low or (high is not None and value > high):
        span = f"{low} or more" if high is None else f"{low} to {high}"
        if value is None:
            raise Illegal(f"{what} is missing: give a whole number, {span}")
        raise Illegal(f"{what} must be a whole number, {span}, not {fields.show(value)}")
    return value


def _hint(raw: Any, known: Sequence[str]) -> str:
    """`` (did you mean 'blue'?)`` for a misspelt name among ``known``."""
    return fields.did_you_mean(raw.strip().lower(), known) if isinstance(raw, str) else ""


def _rider_id(state: GrandTourState, raw: Any) -> str:
    ids = [r.id for r in state.riders]
    if isinstance(raw, str):
        rid = raw.strip().lower()
        if rid in ids:
            return rid
    raise Illegal(f"rider {fields.show(raw)} is not in this tour{_hint(raw, ids)}; riders are named team.role: "
                  f"{', '.join(ids)}")


def _team(state: GrandTourState, raw: Any) -> str:
    names = [t.name for t in state.teams]
    if isinstance(raw, str) and raw.strip().lower() in names:
        return raw.strip().lower()
    raise Illegal(f"team {fields.show(raw)} is not in this tour{_hint(raw, names)}; teams: {', '.join(names)}")


#: What a setup's [time_track] may give: the printed sheet's size and start cell (the seed fixes the rest).
SHEET_KEYS = ("columns", "start_column", "start_row")
#: The keys of a setup file's top level.
SETUP_KEYS = ("stages", "teams", "specialties", "cooperation", "peloton", "time_track", "specialty",
              "lose_time_every_round", "time_points_by_team")


def in_finishing_order(crossed: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """Crossers (rider, squares past the line) in finishing order: the farthest first; riders on the same
    square in the order they were given (the first to reach a square holds its right lane, ahead).  A table
    enters them as they move, front to back, and a rider moved later may go farther: any order is taken."""
    return sorted(crossed, key=lambda c: -c[1])  # sorted() is stable


class GrandTourGame:
    name = "grand_tour"
    #: each command → the fields it takes (the README's vocabulary; ``undo`` is the core's).  A command with
    #: any other field is refused, naming it (:func:`games.core.match.check_fields`).
    commands: Mapping[str, tuple[str, ...]] = {
        "deal_specialties": ("team", "cards"),
        "keep_specialty": ("team", "card", "rider"),
        "finish_round": ("crossed", "pack"),
        "cross": ("rider", "squares"),
        "end_round": ("pack",),
        "exhaustion": ("rider", "cards"),
    }

    # -- start ---------------------------------------------------------------------------------------------
    def start(self, options: Mapping[str, Any]) -> Sequence[Event]:
        if not isinstance(options, Mapping):
            raise Illegal("the setup must be a table (TOML) with stages and teams")
        fields.plain(options, "setup")
        fields.only_keys(options, SETUP_KEYS, "setup")
        data = load_tour_data()
        stages = _whole(options.get("stages"), "stages (how many stages the tour has)", 1, 50)
        teams = options.get("teams")
        peloton = fields.boolean(options, "peloton", False, "setup")
        limits = data["teams"]
        top = limits["max_peloton"] if peloton else limits["max_base"]
        if not isinstance(teams, list) or not all(isinstance(t, str) for t in teams):
            raise Illegal('teams must be a list of team names, e.g. teams = ["red", "blue", "green"]')
        written, teams = teams, [t.strip().lower() for t in teams]
        if not limits["min"] <= len(teams) <= top:
            more = "" if peloton else f" (more than {limits['max_base']} need the Peloton expansion: peloton = true)"
            raise Illegal(f"the Grand Tour seats {limits['min']} to {top} teams, not {len(teams)}{more}")
        for as_written, t in zip(written, teams):
            if not _TEAM_NAME.match(t):  # named as written ("Red Team" was quoted back as 'red team': an audit)
                raise Illegal(f"team name {as_written!r}: use a short lowercase name (letters, digits, _), e.g. red")
        fields.distinct_names(written, "", "team")  # "Red" and "red " are one team: named as written
        specialties = fields.boolean(options, "specialties", False, "setup")
        cooperation = fields.boolean(options, "cooperation", True, "setup")
        cards_raw = options.get("specialty", load_specialty_data())
        cards = self._check_cards(cards_raw)
        if specialties and len(teams) * SPECIALTIES_DEALT > len(cards):
            raise Illegal(
                f"the specialty sheet has {len(cards)} cards: {len(teams)} teams cannot get {SPECIALTIES_DEALT} each; "
                "play without specialties (specialties = false) or with fewer teams"
            )
        tt = dict(data["time_track"])
        override = options.get("time_track", {})
        if not isinstance(override, Mapping):
            raise Illegal("[time_track] must be a table: columns, start_column, start_row")
        for key in override:
            if key not in SHEET_KEYS:
                meant = fields.did_you_mean(str(key), SHEET_KEYS)
                if meant or key not in tt:  # a misspelt key, not one of the seed's fixed facts
                    raise Illegal(f"[time_track] unknown key {fields.show(key)}{meant}; the keys here are columns, "
                                  "start_column, start_row")
                if key == "known":  # the data file's mark on its placeholders, not a fact of the sheet
                    raise Illegal("[time_track] known: leave it out here; the columns, start_column and start_row "
                                  "a setup gives are taken as your sheet's")
                raise Illegal(f"[time_track] {fields.show(key)} cannot be changed (the seed fixes 1 minute per column "
                              "and 10 s per row); the keys here are columns, start_column, start_row")
        tt.update(override)
        rows = tt["seconds_per_column"] // tt["seconds_per_row"]
        columns = _whole(tt["columns"], "time_track columns", 2, 200)
        sc = _whole(tt["start_column"], "time_track start_column", 0, columns - 1)
        sr = _whole(tt["start_row"], "time_track start_row", 0, rows - 1)
        if (sc, sr) == (columns - 1, rows - 1):
            # every marker would begin where markers stop being tracked, and stay tracked there (a rules audit)
            raise Illegal(f"[time_track] start_column {sc} and start_row {sr} are the sheet's bottom-right cell, where "
                          "a marker stops being tracked: give the cell printed \"start\" on your sheet (column 0 is "
                          "the leftmost, row 0 the top)")
        track = {"columns": columns, "rows": rows, "seconds_per_row": tt["seconds_per_row"],
                 "start": sc * rows + sr,
                 # the sheet's columns and start cell are the table's own: the data file's, marked known once the
                 # owner copied them from the printed sheet, or all three given by the setup (else placeholders)
                 "sheet_known": bool(tt.get("known", False)) or all(k in override for k in SHEET_KEYS)}
        scoring = {k: data[k] for k in ("stage_points", "final_time_points", "bonus_places", "bonus_rows", "max_squares")}
        for key in ("lose_time_every_round", "time_points_by_team"):  # the owner's settings: tour.toml, or the setup
            shipped = data.get(key, False)
            if not isinstance(shipped, bool):  # ("false" in quotes would have turned it on)
                raise Illegal(f"tour.toml {key} is {fields.show(shipped)}: write true or false, unquoted")
            scoring[key] = fields.boolean(options, key, shipped, "setup")
        return [Event("tour_set", {
            "stages": stages, "teams": teams, "specialties": specialties,
            "cooperation": cooperation, "peloton": peloton,
            "track": track, "scoring": scoring, "cards": cards,
        })]

    @staticmethod
    def setup_notes(options: Mapping[str, Any]) -> list[str]:
        """What a table beginning this (valid) setup should know before it plays: the time sheet still the data
        file's placeholder, which the screens name only when a rider reaches one of its edges, hours in.  A setup
        giving some of the sheet's keys has them used, the others the placeholder's, and the sheet not taken as
        the printed one (a mistyped or half-copied [time_track] was taken without a word)."""
        tt = load_tour_data()["time_track"]
        override = options.get("time_track", {})
        given = [k for k in SHEET_KEYS if isinstance(override, Mapping) and k in override]
        if tt.get("known", False) or len(given) == len(SHEET_KEYS):
            return []
        rest = [k for k in SHEET_KEYS if k not in given]
        used = ", ".join(f"{k} = {tt[k]}" for k in rest)
        all_three = ("give your printed sheet's columns, start_column and start_row together in the setup's "
                     "[time_track]; until then the top-left and bottom-right cells the screens name are a placeholder's")
        if given:
            return [f"time sheet: [time_track] gives {' and '.join(given)} but not {' or '.join(rest)}: the "
                    f"placeholder's {used} {'is' if len(rest) == 1 else 'are'} used; {all_three}"]
        return [f"time sheet: a placeholder ({used}; the seed does not give the printed sheet): {all_three}"]

    @staticmethod
    def _check_cards(raw: Any) -> list[dict[str, Any]]:
        if not isinstance(raw, list) or not raw or len(raw) > 100:
            raise Illegal("[[specialty]] must be a list of 1 to 100 cards with id, name, timing and text")
        out, seen = [], set()
        for i, c in enumerate(raw, start=1):
            if not isinstance(c, Mapping) or "id" not in c:
                raise Illegal(f"specialty card {i} needs an id")
            at = f"setup: [[specialty]] {i}"
            fields.only_keys(c, ("id", "name", "timing", "text", "known"), at)
            if isinstance(c["id"], bool) or not isinstance(c["id"], (str, int)):
                raise Illegal(f"{at}: id must be a short text or number (got {fields.show(c['id'])})")
            cid = str(c["id"])
            if cid in seen:
                raise Illegal(f"two specialty cards share the id {cid!r}")
            seen.add(cid)
            out.append({"id": cid, "name": fields.text(c, "name", at, f"Specialty {cid}", max_len=60),
                        "timing": fields.text(c, "timing", at, "unknown", max_len=60),
                        "text": fields.text(c, "text", at, "", empty=True), "known": fields.boolean(c, "known", True, at)})
        return out

    # -- evolve --------------------------------------------------------------------------------------------
    def evolve(self, state: GrandTourState | None, event: Event) -> GrandTourState:
        d = event.data
        if event.type == "tour_set":
            t = d["track"]
            track = TimeTrack(t["columns"], t["rows"], t["seconds_per_row"], t["start"])
            sc = d["scoring"]
            return GrandTourState(
                stages=d["stages"], track=track,
                scoring=Scoring(tuple(sc["stage_points"]), tuple(sc["final_time_points"]), sc["bonus_places"],
                                sc["bonus_rows"], sc["max_squares"],
                                bool(sc.get("lose_time_every_round", False)),  # (older logs: the rule as written)
                                bool(sc.get("time_points_by_team", False))),
                specialties_on=d["specialties"], cooperation=d["cooperation"],
                cards=tuple(Specialty(**c) for c in d["cards"]),
                teams=tuple(Team(n) for n in d["teams"]),
                riders=tuple(Rider(f"{n}.{role}", n, role, track.start) for n in d["teams"] for role in ROLES),
                sheet_known=bool(t.get("sheet_known", True)),  # (a log from before the mark: not questioned)
                phase=Phase.SPECIALTIES if d["specialties"] else Phase.RACING,
                note="deal 2 specialties to each team" if d["specialties"] else "stage 1: race",
            )
        if state is None:
            raise ValueError(f"{event.type} before tour_set")
        told = state.news  # (the last stage's points, which the tour's end in the same decision keeps)
        if told:
            state = replace(state, news="")  # told once: the next event has its own (or none)
        if event.type == "specialties_dealt":
            teams = tuple(replace(t, dealt=tuple(d["cards"])) if t.name == d["team"] else t for t in state.teams)
            return replace(state, teams=teams, note=f"{d['team']} dealt {', '.join(d['cards'])}")
        if event.type == "specialty_kept":
            teams = tuple(replace(t, kept=d["card"]) if t.name == d["team"] else t for t in state.teams)
            riders = tuple(replace(r, specialty=d["card"]) if r.id == d["rider"] else r for r in state.riders)
            # every team is told who took what (the keeping team's screen went straight to its dashboard)
            name = state.card(d["card"]).name  # (the placeholders are named "Specialty 4": not "specialty Specialty 4")
            took = f"{rider_label(d['rider'])} takes {'' if name.lower().startswith('specialty') else 'specialty '}{name}"
            return replace(state, teams=teams, riders=riders, note=took, news=took)
        if event.type == "stage_started":
            riders = tuple(replace(r, crossed=False) for r in state.riders)
            # the last rider's exhaustion count starts the stage in the same decision: its news stands after
            # the start line's order (fewest points first), which no screen said; first, as the table places the
            # riders by it now (behind the count it came ~20 s after the last press: an audit, five teams)
            # the rules' words ("teams place at the start line in order of fewest tour points first"): "start line:
            # green, blue, red" did not say who places first (a screens walkthrough)
            start = (f"Stage {d['stage']}: teams place at the start line {', '.join(d['start_order'])} (fewest points "
                     "first)" if d["stage"] > 1 else "")
            return replace(state, phase=Phase.RACING, stage=d["stage"], round=0, order=(), riders=riders,
                           start_order=tuple(d["start_order"]), note=f"stage {d['stage']}: race",
                           news="; ".join(w for w in (start, told) if w))
        if event.type == "crosser_named":
            return replace(state, crossing=d["rider"], note=f"{d['rider']} crossed: squares past the line?")
        if event.type == "crossing_entered":
            return replace(state, open_round=tuple(in_finishing_order([*state.open_round, (d["rider"], d["squares"])])),
                           crossing=None, note=f"{d['rider']} crossed, {d['squares']} past the line")
        if event.type == "round_finished":
            crossed = {c["rider"] for c in d["crossed"]}
            cells = d["cells"]
            riders = tuple(
                replace(r, index=cells[r.id][0], tracked=cells[r.id][1], crossed=r.crossed or r.id in crossed)
                for r in state.riders
            )
            order = state.order + tuple(c["rider"] for c in d["crossed"])
            note = "; ".join(d["log"][-3:])
            news = _sheet_news(state, d)
            if d["crossed"] and not all(r.crossed for r in riders):  # (the stage's end says its own result)
                # who crossed, in what place, and the bonus: the gaps changed on the screens and nothing said why
                # (a walkthrough of five teams)
                news = "; ".join(w for w in (_line_news(state, d), news) if w)
            if not d["crossed"]:  # (lose_time_every_round) the only sign the round was taken: every screen is told
                # (riders whose time stopped on the bottom-right cell lose nothing; the round's number is the log's
                # count of rounds entered at the line, not the table's)
                still = sum(1 for r in riders if not r.crossed and r.tracked)
                lost = f"{still} rider{'' if still == 1 else 's'} still racing lose{'s' if still == 1 else ''} a minute"
                news = "; ".join(w for w in (f"Nobody crossed this round: {lost}", news) if w)
            return replace(state, riders=riders, order=order, round=d["round"], open_round=(), note=note, news=news)
        if event.type == "stage_finished":
            teams = tuple(replace(t, points=t.points + d["points"].get(t.name, 0)) for t in state.teams)
            last = d["stage"] == state.stages
            return replace(
                state, teams=teams, results=state.results + (tuple(d["order"]),),
                phase=Phase.BETWEEN_STAGES if not last else state.phase,
                riders=tuple(replace(r, exhaustion=None, keep=None) for r in state.riders),
                start_order=tuple(d.get("next_start_order", ())),
                note=f"stage {d['stage']} won by {d['order'][0]}",
                # the stage's result first, what the same round told before it after (an audit: the tour's end
                # opened with "red Sprinteur on the top-left cell: …; placeholder time sheet: …" for a minute)
                news=f"Stage {d['stage']} won by {rider_label(d['order'][0])}: " + ", ".join(
                    f"{team} +{pts} pt{'' if pts == 1 else 's'}" for team, pts in sorted(d["points"].items(),
                                                                           key=lambda tp: -tp[1]) if pts)
                + (f"; {told}" if told else ""),
            )
        if event.type == "exhaustion_noted":
            riders = tuple(replace(r, exhaustion=d["cards"], keep=d["keep"]) if r.id == d["rider"] else r
                           for r in state.riders)
            return replace(state, riders=riders, note=f"{d['rider']}: keeps {d['keep']} of {d['cards']} exhaustion cards",
                           # the discard first: it is what the table does ("discards only half, rounded down")
                           news=f"{rider_label(d['rider'])} discards {d['discard']}, keeps {d['keep']} of {d['cards']} "
                                "exhaustion cards")
        if event.type == "tour_finished":
            teams = tuple(replace(t, points=t.points + d["time_points"].get(t.name, 0)) for t in state.teams)
            best = ", ".join(f"{team} +{pts}" for team, pts in sorted(d["time_points"].items(), key=lambda tp: -tp[1])
                             if pts)
            # the winner's points, and on equal points why ("better place in the last stage"): red's screen read
            # 6 pts PLACE 2 beside black's 6 with nothing saying why
            top = max(t.points for t in teams)
            level = [t.name for t in teams if t.points == top and t.name not in d["winners"]]
            why = (f" ({top} pts, level with {' and '.join(level)}: better place in the last stage)" if level
                   else f" with {top} pts")
            return replace(state, teams=teams, phase=Phase.FINISHED, time_ranking=tuple(d["time_ranking"]),
                           winners=tuple(d["winners"]), note=f"tour won by {', '.join(d['winners'])}",
                           news=f"Tour won by {' and '.join(d['winners'])}{why}"
                           + (f"; best time points: {best}" if best else "")
                           + "".join(f"; {tie}" for tie in _ties_after_the_winner(state, teams, d["winners"]))
                           + (f". {told}" if told else ""))
        raise ValueError(f"unknown event {event.type!r}")

    # -- decide --------------------------------------------------------------------------------------------
    def decide(self, state: GrandTourState, command: Command) -> Decision:
        fields.plain(command.args, command.type)
        kind = command.type
        if state.phase is Phase.FINISHED:
            raise Illegal("the tour is over: nothing more to enter (undo to correct the last stage)")
        if kind == "deal_specialties":
            return self._deal(state, command)
        if kind == "keep_specialty":
            return self._keep(state, command)
        if kind == "cross":
            return self._cross(state, command)
        if state.crossing is not None and kind in ("finish_round", "end_round", "exhaustion"):
            raise Illegal(f"{rider_label(state.crossing)} crossed: enter its squares past the line first (cross with squares)")
        if kind == "finish_round":
            return self._finish_round(state, command)
        if kind == "end_round":
            self._racing(state)
            if not state.open_round:
                _nobody_crossed(state)
            return Decision(tuple(self._round_events(state, list(state.open_round), fields.boolean(command.args, "pack", False, command.type))))
        if kind == "exhaustion":
            return self._exhaustion(state, command)
        raise Illegal(
            f"unknown command {kind!r}; the Grand Tour knows deal_specialties, keep_specialty, finish_round, cross, end_round, exhaustion, undo"
        )

    def _deal(self, state: GrandTourState, command: Command) -> Decision:
        if state.phase is not Phase.SPECIALTIES:
            raise Illegal("specialties are dealt only before stage 1, and only with specialties = true in the setup")
        team = _team(state, command.get("team"))
        have = state.team(team).dealt
        if len(have) >= SPECIALTIES_DEALT:
            raise Illegal(f"{team} already has its {SPECIALTIES_DEALT} specialty cards (undo to change them)")
        cards = command.get("cards")
        if isinstance(cards, (str, int)):
            cards = [cards]
        if not isinstance(cards, list) or not 1 <= len(have) + len(cards) <= SPECIALTIES_DEALT or not cards:
            raise Illegal(f"deal exactly {SPECIALTIES_DEALT} specialty cards to a team: cards = [id, id] (or one at a time)")
        cards = [str(c) for c in cards]
        if len(set(cards) | set(have)) != len(cards) + len(have):
            raise Illegal("the two cards dealt must be different cards")
        ids = {c.id for c in state.cards}
        taken = {c for t in state.teams for c in t.dealt}
        for c in cards:
            if c not in ids:
                raise Illegal(f"there is no specialty card {c!r}; cards are {', '.join(sorted(ids))}")
            if c in taken:
                raise Illegal(f"specialty card {c} was already dealt")
        return Decision((Event("specialties_dealt", {"team": team, "cards": list(have) + cards}),))

    def _keep(self, state: GrandTourState, command: Command) -> Decision:
        if state.phase is not Phase.SPECIALTIES:
            raise Illegal("specialties are chosen only before stage 1, and only with specialties = true in the setup")
        team = _team(state, command.get("team"))
        t = state.team(team)
        if len(t.dealt) < SPECIALTIES_DEALT:
            raise Illegal(f"deal {team} its {SPECIALTIES_DEALT} specialty cards first (deal_specialties)")
        if t.kept is not None:
            raise Illegal(f"{team} already kept specialty {state.card(t.kept).name} (undo to change it)")
        card = str(command.get("card"))
        if card not in t.dealt:
            raise Illegal(f"{team} may keep one of its own cards {' or '.join(t.dealt)} "
                          f"({' or '.join(state.card(c).name for c in t.dealt)}), not {fields.show(command.get('card'))}")
        raw = command.get("rider")
        role = raw.strip().lower() if isinstance(raw, str) else raw
        if role not in ROLES:
            raise Illegal(f'rider must be "rouleur" or "sprinteur" (the rider who gets the specialty), not '
                          f'{fields.show(raw)}{_hint(raw, ROLES)}')
        events = [Event("specialty_kept", {"team": team, "card": card, "rider": f"{team}.{role}", "discarded":
                                           [c for c in t.dealt if c != card][0]})]
        if all(x.kept is not None or x.name == team for x in state.teams):
            events.append(Event("stage_started", {"stage": 1, "start_order": []}))
        return Decision(tuple(events))

    @staticmethod
    def _racing(state: GrandTourState) -> None:
        if state.phase is Phase.SPECIALTIES:
            raise Illegal("every team keeps its specialty before stage 1 starts (deal_specialties, keep_specialty)")
        if state.phase is Phase.BETWEEN_STAGES:
            raise Illegal(f"stage {state.stage} is over: enter each rider's exhaustion cards first")

    @staticmethod
    def _crosser(state: GrandTourState, item: Any, before: list[tuple[str, int]]) -> tuple[str, int]:
        """Check one crosser against the stage so far and the crossers listed before it in this round."""
        if not isinstance(item, Mapping):
            raise Illegal('each crosser is {"rider": "team.role", "squares": N}')
        fields.only_keys(item, ("rider", "squares"), "a crosser", noun="field")  # "sqaures" named, not "missing"
        rid = _rider_id(state, item.get("rider"))
        if state.rider(rid).crossed or rid in [c[0] for c in before]:
            raise Illegal(f"{rider_label(rid)} has already crossed the line in this stage")
        squares = _whole(item.get("squares"), f"squares past the line for {rider_label(rid)}", 0)
        return rid, squares

    def _cross(self, state: GrandTourState, command: Command) -> Decision:
        """``cross {rider, squares}`` enters a crosser; ``cross {rider}`` names it and ``cross {squares}``
        (the rider optional, and then the named one) gives its squares."""
        self._racing(state)
        args = dict(command.args)
        if state.crossing is not None:
            if "rider" in args and _rider_id(state, args["rider"]) != state.crossing:
                raise Illegal(f"{rider_label(state.crossing)} crossed: enter its squares past the line first")
            if "squares" not in args:
                raise Illegal(f"{rider_label(state.crossing)} is already named: give its squares past the line")
            args["rider"] = state.crossing
            rid, squares = self._crosser(state, args, list(state.open_round))
            return Decision((Event("crossing_entered", {"rider": rid, "squares": squares}),))
        if "rider" not in args:
            raise Illegal("name the rider who crossed first: cross {rider}, then its squares past the line "
                          "(or cross {rider, squares} at once)")
        if "squares" not in args:
            rid = _rider_id(state, args.get("rider"))
            if state.rider(rid).crossed or rid in [c[0] for c in state.open_round]:
                raise Illegal(f"{rider_label(rid)} has already crossed the line in this stage")
            return Decision((Event("crosser_named", {"rider": rid}),))
        rid, squares = self._crosser(state, args, list(state.open_round))
        return Decision((Event("crossing_entered", {"rider": rid, "squares": squares}),))

    def _finish_round(self, state: GrandTourState, command: Command) -> Decision:
        self._racing(state)
        if state.open_round:
            raise Illegal("a round is being entered crosser by crosser: add the rest with cross, then end_round")
        raw = command.get("crossed")
        if not isinstance(raw, list):
            raise Illegal('finish_round needs "crossed": the riders who crossed, in any order, e.g. [{"rider": "red.sprinteur", "squares": 3}]')
        if not raw:
            _nobody_crossed(state)
        crossed: list[tuple[str, int]] = []
        for item in raw:
            crossed.append(self._crosser(state, item, crossed))
        return Decision(tuple(self._round_events(state, crossed, fields.boolean(command.args, "pack", False, command.type))))

    def _round_events(self, state: GrandTourState, crossed: list[tuple[str, int]], pack: bool) -> list[Event]:
        """The end of a round in which ``crossed`` crossed the line (squares checked), in any order: the
        finishing order is the farthest first, riders on the same square in the order given."""
        crossed = in_finishing_order(crossed)
        pack = pack and bool(crossed)  # (nobody crossed: no pack to take anybody's time)
        cap = state.scoring.max_squares
        lead_rows = min(crossed[0][1], cap) if crossed else 0  # (nobody crossed: lose_time_every_round)
        moves = [(rid, lead_rows if pack else min(sq, cap)) for rid, sq in crossed]
        places = {rid: len(state.order) + i + 1 for i, (rid, _) in enumerate(crossed)}
        bonus = {rid for rid, p in places.items() if p <= state.scoring.bonus_places}
        markers = {r.id: Marker(r.id, r.index, r.tracked) for r in state.riders}
        crossers = {rid for rid, _ in crossed}
        still = [r.id for r in state.riders if not r.crossed and r.id not in crossers]
        rule_by: list[str] = []
        log = finish_round(state.track, markers, still, moves, bonus, state.scoring.bonus_rows, pack=pack,
                           rule_by=rule_by)
        round_no = state.round + 1
        events = [Event("round_finished", {
            "stage": state.stage, "round": round_no, "pack": pack,
            "crossed": [{"rider": rid, "squares": sq, "rows_up": rows, "place": places[rid], "bonus": rid in bonus}
                        for (rid, sq), (_, rows) in zip(crossed, moves)],
            "cells": {rid: [m.index, m.tracked] for rid, m in markers.items()},
            "log": log,
            # what the table is told of the sheet's edges (the gaps on the screens jump a minute, or a rider's time
            # stops): each rider whose marker made the top-left rule move the others; the markers the bottom-right
            # cell stopped
            "top_left": rule_by,
            "untracked": [r.id for r in state.riders if r.tracked and not markers[r.id].tracked],
        })]
        if not still:
            events += self._stage_end(state, markers, state.order + tuple(rid for rid, _ in crossed))
        return events

    def _stage_end(self, state: GrandTourState, markers: dict[str, Marker], order: tuple[str, ...]) -> list[Event]:
        points: dict[str, int] = {}
        for rid, pts in zip(order, state.scoring.stage_points):
            team = rid.split(".")[0]
            points[team] = points.get(team, 0) + pts
        totals = {t.name: t.points + points.get(t.name, 0) for t in state.teams}
        index = {rid: m.index for rid, m in markers.items()}
        place = {rid: i + 1 for i, rid in enumerate(order)}
        last = state.stage == state.stages
        data: dict[str, Any] = {"stage": state.stage, "order": list(order), "points": points}
        if not last:
            data["next_start_order"] = start_order(totals, index, place)
            return [Event("stage_finished", data)]
        ranking = sorted(index, key=lambda rid: (index[rid], place[rid]))
        time_points: dict[str, int] = {}
        # rider by rider (one team may take 3 and 2), or, the owner's setting, team by team at each team's best
        # rider's time ("the player 1st by time spent", the seed; a rules audit)
        ranked = (list(dict.fromkeys(rid.split(".")[0] for rid in ranking)) if state.scoring.time_points_by_team
                  else [rid.split(".")[0] for rid in ranking])
        for team, pts in zip(ranked, state.scoring.final_time_points):
            time_points[team] = time_points.get(team, 0) + pts
        final = {t: totals[t] + time_points.get(t, 0) for t in totals}
        return [Event("stage_finished", data),
                Event("tour_finished", {"time_ranking": ranking, "time_points": time_points,
                                        "winners": tour_winners(final, place)})]

    def _exhaustion(self, state: GrandTourState, command: Command) -> Decision:
        if state.phase is not Phase.BETWEEN_STAGES:
            raise Illegal("exhaustion cards are counted between stages, once every rider has crossed the line")
        rid = _rider_id(state, command.get("rider"))
        if state.rider(rid).exhaustion is not None:
            raise Illegal(f"{rider_label(rid)}'s exhaustion cards are already entered (undo to correct them)")
        cards = _whole(command.get("cards"), f"exhaustion cards held by {rider_label(rid)}", 0, MAX_EXHAUSTION)
        keep = cards - cards // 2
        events = [Event("exhaustion_noted", {"rider": rid, "cards": cards, "discard": cards // 2, "keep": keep})]
        if all(r.exhaustion is not None or r.id == rid for r in state.riders):
            events.append(Event("stage_started", {"stage": state.stage + 1, "start_order": list(state.start_order)}))
        return Decision(tuple(events))

    # -- prompt and views ----------------------------------------------------------------------------------
    def prompt(self, state: GrandTourState) -> Prompt:
        """What the table does next.  ``commands`` names the commands of the step as the buttons do it
        (``GAME.menu`` offers each of them); ``finish_round``, the one-shot form of a round for scripts, is
        accepted whenever no round is being entered but is not listed: the buttons enter a round crosser by
        crosser (``cross``, then ``end_round``)."""
        if state.phase is Phase.FINISHED:
            return Prompt(text=f"tour over: {', '.join(state.winners)} won", step="tour over", awaits="nothing",
                          commands=("undo",))
        served = state.specialty_team
        if served is not None and len(served.dealt) < SPECIALTIES_DEALT:
            return Prompt(text=f"{served.name}: deal {SPECIALTIES_DEALT} specialty cards", step="specialties",
                          awaits="choice", player=served.name, commands=("deal_specialties", "undo"))
        if served is not None:
            cards = " or ".join(state.card(c).name for c in served.dealt)
            return Prompt(text=f"{served.name}: keep {cards} and give it to a rider", step="specialties",
                          awaits="choice", player=served.name, commands=("keep_specialty", "undo"))
        if state.phase is Phase.BETWEEN_STAGES:
            todo = [r.id for r in state.riders if r.exhaustion is None]
            return Prompt(text=f"after stage {state.stage}: count exhaustion cards of {rider_label(todo[0])} (half are "
                               "discarded, rounded down)",
                          step="between stages", awaits="count", player=todo[0].split(".")[0],
                          commands=("exhaustion", "undo"))
        if state.crossing is not None:
            return Prompt(text=f"stage {state.stage}: {rider_label(state.crossing)} crossed; how many squares past the "
                               f"line (0 to {state.scoring.max_squares}+)?",
                          step="racing", awaits="squares", commands=("cross", "undo"))
        if state.open_round:
            entered = {rid for rid, _ in state.open_round}
            more = any(not r.crossed and r.id not in entered for r in state.riders)
            text = (f"stage {state.stage}: crossed so far {', '.join(f'{rider_label(r)} +{q}' for r, q in state.open_round)}; "
                    + ("add the next crosser or end the round" if more else "every rider is in: end the round"))
            return Prompt(text=text, step="racing", awaits="finish",
                          commands=(("cross",) if more else ()) + ("end_round", "undo"))
        text = f"stage {state.stage}/{state.stages}: at the end of a round in which riders crossed, enter who crossed and how far"
        if nobody_crossed_counts(state):
            text = (f"stage {state.stage}/{state.stages}: at the end of each round, enter who crossed and how far, or "
                    "that nobody crossed (riders still racing lose a minute)")
            return Prompt(text=text, step="racing", awaits="finish", commands=("cross", "end_round", "undo"))
        return Prompt(text=text, step="racing", awaits="finish", commands=("cross", "undo"))

    def views(self, state: GrandTourState) -> Sequence[TeamView]:
        return build_views(state, self.prompt(state).text)

    def menu(self, state: GrandTourState) -> Menu:
        """The button menu of this step (:mod:`games.grand_tour.menus`)."""
        from games.grand_tour.menus import menu

        return menu(state)

    # -- the game log's words (the phone's timeline, :mod:`device.web.timeline`) ---------------------------
    def timeline_heading(self, state: GrandTourState) -> str:
        """Where the table was before a decision, as the game log heads it: the stage, and the round at the line within it."""
        return timeline_heading(state)

    def timeline_words(self, event: Event, names: Mapping[str, str] | None = None) -> str | None:
        """An event in the game's words for the game log (None: the log's plain reading will do); ``names``
        (vehicles' names by id) are not needed: this game's events say whom they name in words already."""
        return timeline_words(event)

    def undone_with(self, event: Event) -> str | None:
        """What an undo of a decision also undoes when the decision brought ``event`` about after its own, in a
        few words ("stage 2's start"), or None: the last exhaustion count starts the next stage, the last round
        ends the stage and the tour, and one BACK said only "UNDONE: white Sprinteur › 5 to 9 cards › 6" while
        every screen went back a stage (a walkthrough)."""
        d = event.data
        if event.type == "stage_started":
            return f"stage {d['stage']}'s start"
        if event.type == "stage_finished":
            return f"stage {d['stage']}'s points"
        if event.type == "tour_finished":
            return "the tour's result"
        return None


def _line_news(state: GrandTourState, round_data: Mapping[str, Any]) -> str:
    """A round's crossers as every team is told them: "At the line: 1st red Sprinteur (10 s bonus), 2nd blue
    Rouleur (10 s bonus), 3rd green Rouleur; a pack: all take the first's time"."""
    bonus = state.scoring.bonus_rows * state.track.seconds_per_row
    crossed = ", ".join(f"{ordinal(int(c['place']))} {rider_label(str(c['rider']))}"
                        + (f" ({bonus} s bonus)" if c.get("bonus") and bonus else "") for c in round_data["crossed"])
    return f"At the line: {crossed}" + ("; a pack: all take the first's time" if round_data.get("pack") else "")


def _sheet_news(state: GrandTourState, round_data: Mapping[str, Any]) -> str:
    """What every team is told when a round reaches the sheet's edges: the top-left rule ("every other marker
    moves one column right at once": each gap to the leader grows by a minute) and the bottom-right cell (the
    rider's time stops).  Both depend on the printed sheet's size and start cell, which the seed does not give:
    on the data file's placeholders the table is told to give its own."""
    said = []
    for rider in round_data.get("top_left", ()):
        said.append(f"{rider_label(rider)} on the top-left cell: every other marker moves one column right")
    gone = list(round_data.get("untracked", ()))
    if gone:
        said.append(f"{', '.join(rider_label(r) for r in gone)} reached the bottom-right cell: no longer tracked")
    if said and not state.sheet_known:
        # (the table's words: where the owner gives the sheet is the README's and the Rule facts page's)
        said.append("the time sheet is a placeholder, not your printed one: the owner gives its size")
    return "; ".join(said)


def _ties_after_the_winner(state: GrandTourState, teams: Sequence[Team], winners: Sequence[str]) -> list[str]:
    """The final classification's ties after the winner, in words ("green before blue on 4 pts: less time"): the
    screens gave the two teams of equal points different places with nothing saying why (a review)."""
    index, place = state.tie_keys()
    best = {t.name: best_rider(t.name, index, place) for t in teams if t.name not in winners}
    out = []
    for pts in sorted({t.points for t in teams if t.name in best}, reverse=True):
        level = sorted((t.name for t in teams if t.points == pts and t.name in best), key=best.__getitem__)
        if len(level) > 1:
            times = [best[name][0] for name in level]
            how = ("less time" if len(set(times)) == len(times) else "better place in the last stage"
                   if len(set(times)) == 1 else "less time, then the last stage")
            out.append(f"{' before '.join(level)} on {pts} pts: {how}")
    return out


def nobody_crossed_counts(state: GrandTourState) -> bool:
    """Whether a round in which nobody crossed moves the time track now: the setting (``lose_time_every_round``)
    is on and riders of this stage have crossed (before them nobody loses time: the stage's clock starts with the
    first crossers)."""
    return state.scoring.lose_time_every_round and bool(state.order)


def _nobody_crossed(state: GrandTourState) -> None:
    """Refuse a round entered with no crosser, unless :func:`nobody_crossed_counts`, saying why."""
    if nobody_crossed_counts(state):
        return
    if state.scoring.lose_time_every_round:
        raise Illegal("nobody crossed, and nobody has crossed in this stage yet: the time track starts with the "
                      "stage's first crossers")
    # (the setting is the owner's, in tour.toml and the README: a player's screen says the rule as played)
    raise Illegal("nobody crossed: the time track moves only at the end of a round in which riders crossed the line")


def start_order(points: Mapping[str, int], index: Mapping[str, int], place: Mapping[str, int]) -> list[str]:
    """Teams in the order they place at the start line: fewest tour points first.  Equal points: the team
    that loses the seed's tie-break (more time for its best rider, then worse last-stage place) first."""

    def key(team: str) -> tuple[int, int, int]:
        time, stage_place = best_rider(team, index, place)
        return (points[team], -time, -stage_place)

    return sorted(points, key=key)


def tour_winners(points: Mapping[str, int], place: Mapping[str, int]) -> list[str]:
    """Most tour points; equal points: better place in the last stage (time is not used, per the seed).
    A list, in case the owner's data ever gives two teams the same last-stage place (it cannot happen with
    one finishing order, so in practice one winner)."""
    best = max(points.values())
    tied = [t for t in points if points[t] == best]
    if len(tied) == 1:
        return tied
    best_place = {t: min(p for rid, p in place.items() if rid.split(".")[0] == t) for t in tied}
    top = min(best_place.values())
    return sorted(t for t in tied if best_place[t] == top)


GAME = GrandTourGame()
