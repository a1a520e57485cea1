"""What each team's 128×64 screen shows: tour points, each rider's time gap to the leader, the exhaustion
cards each rider keeps, and the team's start position for the next stage."""

from __future__ import annotations

from dataclasses import dataclass, field

from games.core import Alert, Event
from games.grand_tour.state import SPECIALTIES_DEALT, GrandTourState, Phase, best_rider, rider_label


def clock(seconds: int) -> str:
    """``130`` → ``"2:10"``."""
    m, s = divmod(seconds, 60)
    return f"{m}:{s:02d}"


@dataclass(frozen=True)
class RiderView:
    id: str
    role: str
    time: str  # total time on the track, m:ss
    gap_seconds: int  # behind the leader (0 = the leader)
    gap: str  # "+1:20", or "leader"
    tracked: bool
    crossed: bool
    stage_place: int | None  # place in the current stage once crossed
    exhaustion: int | None
    keep: int | None
    specialty: str | None
    specialty_text: str | None
    #: the rider's place on time among all riders (1 = the least time): with five teams a gap alone did not say who
    #: led or where one stood (a walkthrough).  "Same time: the one who finished better in the last stage wins":
    #: riders on one cell are told apart by the last finished stage (two were both shown 1st at the tour's end while
    #: the best-time points gave 3 and 2, a rules audit); before the first stage ends they share it
    time_place: int = 1


@dataclass(frozen=True)
class TeamView:
    """One team's screen (``player`` is the team: the screens are keyed by it)."""

    player: str
    team: str
    points: int
    rank: int  # by tour points, 1 = most (shared for equal points; at the tour's end, the final classification)
    stage: int
    stages: int
    phase: str
    start_position: int | None  # at the start line of the next (or current) stage; None for stage 1
    riders: tuple[RiderView, ...]
    winner: bool
    cooperation: bool
    prompt: str
    note: str = ""
    alerts: tuple[Alert, ...] = field(default_factory=tuple)
    #: what the last decision settled that every team is told (``GrandTourState.news``)
    news: str = ""
    #: the tour's winners, once it is over (every screen names them, not the winners' alone)
    winners: tuple[str, ...] = ()


def build_views(state: GrandTourState, prompt_text: str) -> tuple[TeamView, ...]:
    lead = state.leader_index
    out = []
    ranks = _ranks(state)
    served = state.specialty_team
    # the rider whose exhaustion cards the menu asks now (seat order): every team with a rider still to count
    # flashed "your team's step" at once, five headers for one count (a walkthrough of five teams)
    counting = next((r for r in state.riders if r.exhaustion is None), None) \
        if state.phase is Phase.BETWEEN_STAGES else None
    index, place = state.tie_keys()  # less time, then the better place in the last stage
    for team in state.teams:
        riders = []
        for r in state.riders:
            if r.team != team.name:
                continue
            gap = state.track.seconds(r.index - lead)
            spec = state.card(r.specialty) if r.specialty else None
            riders.append(
                RiderView(
                    id=r.id, role=r.role, time=clock(state.track.seconds(r.index)), gap_seconds=gap,
                    gap="leader" if gap == 0 else f"+{clock(gap)}", tracked=r.tracked, crossed=r.crossed,
                    stage_place=(state.order.index(r.id) + 1) if r.id in state.order else None,
                    exhaustion=r.exhaustion, keep=r.keep,
                    specialty=spec.name if spec else None,
                    specialty_text=(spec.text if spec.known else "?") if spec else None,
                    time_place=1 + sum((index[o.id], place[o.id]) < (index[r.id], place[r.id]) for o in state.riders),
                )
            )
        rank = ranks[team.name]
        alerts: list[Alert] = []
        if counting is not None and counting.team == team.name:
            # whose cards: the count's list is titled "5 to 9 cards" once opened, the rider's name gone from it
            alerts.append(Alert("enter_exhaustion", f"count exhaustion cards of {rider_label(counting.id)}", team.name))
        if served is not None and served.name == team.name:
            # the team served now only (its header flashes: every team's flashed at once, and the others had nothing
            # to do; a review); a team still to be dealt was told "keep 1 specialty" while it was dealt (an audit)
            todo_words = "keep 1 specialty" if len(team.dealt) >= SPECIALTIES_DEALT else \
                f"deal {SPECIALTIES_DEALT} specialties"
            alerts.append(Alert("choose_specialty", todo_words, team.name))
        out.append(
            TeamView(
                player=team.name, team=team.name, points=team.points, rank=rank, stage=state.stage, stages=state.stages,
                phase=state.phase.value,
                start_position=(state.start_order.index(team.name) + 1) if team.name in state.start_order else None,
                riders=tuple(riders), winner=team.name in state.winners, cooperation=state.cooperation,
                prompt=prompt_text, note=state.note, alerts=tuple(alerts), news=state.news, winners=state.winners,
            )
        )
    return tuple(out)


def _ranks(state: GrandTourState) -> dict[str, int]:
    """Each team's place by tour points, equal points sharing one; once the tour is finished, the final
    classification: the winner first (equal points: the better place in the last stage, time not used,
    :func:`games.grand_tour.rules.tour_winners`), so a team that lost that tie is not shown PLACE 1 too; the other
    places by points, then the seed's tie rule between riders, "the one with less total time wins … Same time:
    the one who finished better in the last stage wins", each team by its best rider as at the start line
    (:func:`games.grand_tour.rules.start_order`).  (They were ordered as the winner is, time ignored: a team 30 s
    faster was shown behind one with a better last stage, and the start line ordered the two the other way.)"""
    if state.phase is not Phase.FINISHED or not state.results:
        points = {t.name: t.points for t in state.teams}
        return {name: 1 + sum(1 for other in points.values() if other > mine) for name, mine in points.items()}

    index, place = state.tie_keys()

    def key(team: str, points: int) -> tuple[int, int, int]:
        return (-points, *best_rider(team, index, place))

    winners = set(state.winners)
    keys = {t.name: key(t.name, t.points) for t in state.teams if t.name not in winners}
    ranks = {name: 1 for name in winners}
    ranks.update({name: 1 + len(winners) + sum(1 for other in keys.values() if other < mine) for name, mine in keys.items()})
    return ranks


# -- the game log's words (device/web/timeline.py) ------------------------------------------------------


def timeline_heading(state: GrandTourState) -> str:
    """Where the tour was, as the game log heads its decisions: the stage, and within it the round at the line
    being entered (the companion counts the rounds entered at the line: those in which riders crossed, and with
    ``lose_time_every_round`` those after the stage's first crossers in which nobody did)."""
    if state.phase is Phase.SPECIALTIES:
        return "Before stage 1 · specialties"
    if state.phase is Phase.BETWEEN_STAGES:
        return f"After stage {state.stage} · exhaustion cards"
    if state.phase is Phase.FINISHED:
        return "Tour over"
    return f"Stage {state.stage} · round {state.round + 1} at the line"


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def ordinal(n: int) -> str:
    """1 → "1st", 12 → "12th"."""
    if n % 100 in (11, 12, 13):
        return f"{n}th"
    return f"{n}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def timeline_words(event: Event) -> str | None:
    """An event of the tour in the rulebook's words, for the game log; None: the log's plain reading will do.
    The set-up in a few words (not its rule tables); a round at the line as who crossed how far (not the time
    track's cells); a stage's and the tour's end as the points."""
    d = event.data
    if event.type == "tour_set":
        teams = [str(t) for t in d["teams"]]
        words = [f"{_count(len(teams), 'team')} ({', '.join(teams)})", _count(int(d["stages"]), "stage")]
        if d.get("peloton"):
            words.append("Peloton")
        if d.get("specialties"):
            words.append("specialties")
        words.append("cooperation " + ("allowed" if d.get("cooperation") else "off"))
        if d.get("scoring", {}).get("lose_time_every_round"):
            words.append("a round nobody crosses costs a minute")
        return "Grand Tour set: " + ", ".join(words)
    if event.type == "specialties_dealt":
        cards = [str(c) for c in d["cards"]]
        return f"{d['team']} is dealt specialty cards {' and '.join(cards) if len(cards) == 2 else ', '.join(cards)}"
    if event.type == "specialty_kept":
        return (f"{rider_label(str(d['rider']))} keeps specialty card {d['card']}"
                + (f", discards {d['discarded']}" if d.get("discarded") is not None else ""))
    if event.type == "stage_started":
        return f"stage {d['stage']} starts"
    if event.type == "exhaustion_noted":
        # "each player discards only half of their exhaustion cards, rounded down"
        return (f"{rider_label(str(d['rider']))}: {_count(int(d['cards']), 'exhaustion card')}, discards "
                f"{d['discard']}, keeps {d['keep']} for the next stage")
    if event.type == "round_finished":
        crossed = [f"{ordinal(int(c['place']))} {rider_label(str(c['rider']))} +{c['squares']}"
                   + (" (10 s bonus)" if c.get("bonus") else "") for c in d["crossed"]]
        pack = "; a pack: all take the first's time" if d.get("pack") else ""
        edges = "".join(f"; {rider_label(str(r))} on the top-left cell: every other marker one column right"
                        for r in d.get("top_left", ()))
        if d.get("untracked"):
            edges += f"; {', '.join(rider_label(str(r)) for r in d['untracked'])} no longer tracked (bottom-right cell)"
        return f"round {d['round']} at the line: {', '.join(crossed) or 'nobody crossed'}{pack}{edges}"
    if event.type == "stage_finished":
        points = sorted(d["points"].items(), key=lambda tp: -int(tp[1]))
        order = ", ".join(rider_label(str(r)) for r in d["order"])
        return (f"stage {d['stage']} finished: points {', '.join(f'{t} {p}' for t, p in points) or 'none'}; "
                f"order {order}")
    if event.type == "tour_finished":
        points = sorted(d["time_points"].items(), key=lambda tp: -int(tp[1]))
        return (f"tour over: {', '.join(str(w) for w in d['winners'])} won; time points "
                f"{', '.join(f'{t} {p}' for t, p in points) or 'none'}")
    return None
