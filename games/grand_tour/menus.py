"""The Grand Tour on the buttons: ``menu(state)`` says what the table can do now (games.core.table_input).

::

    specialties     Deal: Specialty 1 ... Specialty 9 (one card at a time; past 8, "More cards")
                    Keep: Keep Specialty 3 → Rouleur / Sprinteur
    racing          the riders still racing: red Rouleur, red Sprinteur, ... (some by team when they do not
                    fit: blue → Rouleur / Sprinteur) · End round (after two crossers: → Pack / No pack) ·
                    Nobody crossed (with lose_time_every_round, once the stage has crossers)
    a crosser named Squares past the line: 0 1 2 3 4 5+
    between stages  Exhaustion cards of the rider the prompt names: 0 to 4 → 0..4, 5 to 9, ..., 21 to 40 cards…

Why a crosser is two steps (rider, then squares) and not one tree rider → squares: a round's menu would hold
every racing rider times six squares (48 leaves for four teams), and no tree of eight-wide lists reaches
half of those in four presses.  Named first (``cross {rider}``), the squares are one short list of their own
(``cross {squares}``), the way a die follows a card in the Space Race.

Why exhaustion cards come in groups of five: 21 counts (0 to 20) in one wrapping list cost up to 11 presses;
in groups of five, with 21-40 folded into a fifth entry (a deck carrying its exhaustion over stages holds
more than 20), no count costs more than 8 and half cost 5 or fewer.

Every leaf is checked against the rules (``keep_legal`` through ``GAME.decide``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import combinations
from statistics import median

from games.core import Command
from games.core.table_input import (FIRST_LEVEL_MAX, READING_SEP, Choice, Menu, accepted_by, branch, keep_legal, leaf,
                                    leaves)
from games.grand_tour.rules import GAME, nobody_crossed_counts
from games.grand_tour.state import ROLES, SPECIALTIES_DEALT, GrandTourState, Phase, rider_label

#: exhaustion cards: the count the cursor starts on (few cards are the rule), and the size of a group
EXHAUSTION_DEFAULT = 2
EXHAUSTION_GROUP = 5
#: the buttons offer 0..this many exhaustion cards, each within eight presses (a typed command, up to
#: rules.MAX_EXHAUSTION)
BUTTON_MAX_EXHAUSTION = 40
#: squares past the line the cursor starts on for the first crosser of a round (the middle of 0..5)
SQUARES_DEFAULT = 2
#: How many values "5+…" offers from the five-square limit up: 5, 6, 7 and "8+" (two riders both 8 or more past
#: the line are rare enough to be entered farthest first; more values put the median choice over 4 presses).
SQUARES_BEYOND = 4
#: One line of the screens' small font on 128 px: a label that fits its row.
STATUS_CHARS = 21


def _legal(state: GrandTourState) -> Callable[[Command], bool]:
    return accepted_by(GAME.decide, state)


def fit_first_level(choices: Sequence[Choice], more: str) -> tuple[Choice, ...]:
    """At most FIRST_LEVEL_MAX choices: past that, the last place opens the rest (``more``)."""
    if len(choices) <= FIRST_LEVEL_MAX:
        return tuple(choices)
    rest = fit_first_level(choices[FIRST_LEVEL_MAX - 1:], more)
    return (*choices[: FIRST_LEVEL_MAX - 1], Choice(more, children=rest))


def menu(state: GrandTourState) -> Menu:
    legal = _legal(state)
    if state.phase is Phase.FINISHED:
        return Menu(title="Tour over", choices=(), status=f"Won by {', '.join(state.winners)}")
    if state.phase is Phase.SPECIALTIES:
        return _specialties(state, legal)
    if state.phase is Phase.BETWEEN_STAGES:
        return _exhaustion(state, legal)
    if state.crossing is not None:
        return _squares(state, legal)
    return _crossers(state, legal)


def _specialties(state: GrandTourState, legal: Callable[[Command], bool]) -> Menu:
    taken = {c for t in state.teams for c in t.dealt}
    for t in state.teams:
        if len(t.dealt) < SPECIALTIES_DEALT:
            cards = [leaf(c.name, Command("deal_specialties", {"team": t.name, "cards": [c.id]}))
                     for c in state.cards if c.id not in taken]
            choices = fit_first_level(keep_legal(cards, legal), "More cards")
            return Menu(title="Deal specialties", choices=choices, player=t.name,
                        status=f"{t.name}: card {len(t.dealt) + 1} of {SPECIALTIES_DEALT}")
    for t in state.teams:
        if t.kept is None:
            choices = keep_legal([
                branch(f"Keep {state.card(cid).name}", [
                    leaf(role.capitalize(), Command("keep_specialty", {"team": t.name, "card": cid, "rider": role}))
                    for role in ROLES
                ]) for cid in t.dealt
            ], legal)
            return Menu(title="Keep a specialty", choices=choices, player=t.name,
                        status=f"{t.name}: keep 1 of {len(t.dealt)}")
    raise AssertionError("specialties phase with every team served")  # the last keep starts stage 1


def _crossers(state: GrandTourState, legal: Callable[[Command], bool]) -> Menu:
    """The riders still racing (each leaf names the next crosser) and, once one is in, the end of the round.

    Riders are listed one by one ("red Rouleur") while they all fit the first level; else some teams are
    folded into one entry each ("blue" → Rouleur / Sprinteur), teams kept in seating order, and which ones
    are folded is the arrangement that costs the fewest presses (:func:`_fold_teams`).  Once crossers are in,
    the cursor starts on the end of the round: "End round" after one crosser (a pack of one is no pack), and
    after two or more "End round" → "Pack" (the default: riders who cross in the same round mostly ride in
    one group) / "No pack".  With ``lose_time_every_round``, once the stage has crossers and none is entered yet,
    "Nobody crossed" ends a round with no crosser."""
    entered = {rid for rid, _ in state.open_round}
    racing = [r for r in state.riders if not r.crossed and r.id not in entered]
    ends: list[Choice] = []
    if len(state.open_round) == 1:
        ends.append(leaf("End round", Command("end_round", {"pack": False}), default=True))
    elif state.open_round:
        # what each means, on its line: "if all the riders who crossed this round are linked in one unbroken
        # chain, they all get the same time as the first" (a walkthrough: "Pack" was the default, unexplained)
        ends.append(Choice("End round", default=True, children=(
            leaf(f"Pack{READING_SEP}all 1st's time", Command("end_round", {"pack": True}), default=True),
            leaf(f"No pack{READING_SEP}own times", Command("end_round", {"pack": False})),
        )))
    if not state.open_round and nobody_crossed_counts(state):
        # lose_time_every_round: a round with no crosser moves the riders still racing one column right
        ends.append(leaf("Nobody crossed", Command("end_round", {"pack": False})))
    teams = [(t.name, [r.id for r in racing if r.team == t.name]) for t in state.teams]
    choices = keep_legal(_fold_teams([(t, rids) for t, rids in teams if rids], ends), legal)
    if state.open_round:
        # every crosser entered this round, in the order they crossed, and how far past the line ("+3" alone did
        # not say whose 3 it was; with only the last one named, which were in before End round was on no screen: a
        # walkthrough); a status too long for the footer turns there a piece at a time
        crossers = ", ".join(f"{rider_label(rid)} +{squares}" for rid, squares in state.open_round)
        status = f"{len(state.open_round)} in: {crossers}"
    else:
        status = f"Stage {state.stage}/{state.stages}: {len(racing)} racing"
        if state.order and not nobody_crossed_counts(state):
            # the time track moves only in rounds with crossers (lose_time_every_round off): no screen said that a
            # round nobody crosses is not entered, and the buttons offer no "Nobody crossed" (a walkthrough)
            status += " · if none crossed: enter nothing"
    return Menu(title="Who crossed the line", choices=choices, status=status)


def _fold_teams(teams: Sequence[tuple[str, Sequence[str]]], ends: Sequence[Choice]) -> tuple[Choice, ...]:
    """The first level of the crossers' menu: every racing rider by name when they fit, else the teams whose
    folding (team → Rouleur / Sprinteur) gives the lowest median, then maximum, then total of presses among
    the arrangements that fit FIRST_LEVEL_MAX (at most 2**6 of them: six teams with the Peloton)."""

    def named(rid: str) -> Choice:
        return leaf(rider_label(rid), Command("cross", {"rider": rid}))

    def arrange(folded: frozenset[str]) -> tuple[Choice, ...]:
        out: list[Choice] = []
        for team, rids in teams:
            if team in folded:
                out.append(Choice(team, children=tuple(
                    leaf(rid.split(".", 1)[1].capitalize(), Command("cross", {"rider": rid})) for rid in rids)))
            else:
                out.extend(named(rid) for rid in rids)
        return (*out, *ends)

    flat = arrange(frozenset())
    if len(flat) <= FIRST_LEVEL_MAX:
        return flat
    pairs = [team for team, rids in teams if len(rids) > 1]
    best: tuple[tuple[float, int, int], tuple[Choice, ...]] | None = None
    for k in range(1, len(pairs) + 1):
        for folded in combinations(pairs, k):
            choices = arrange(frozenset(folded))
            if len(choices) > FIRST_LEVEL_MAX:
                continue
            presses = [lf.presses for lf in leaves(choices)]
            score = (median(presses), max(presses), sum(presses))
            if best is None or score < best[0]:
                best = (score, choices)
    assert best is not None  # folding every team fits: at most 6 teams and one end-of-round entry
    return best[1]


def _squares(state: GrandTourState, legal: Callable[[Command], bool]) -> Menu:
    """Squares past the line for the named crosser: 0 up to 5 ("5+": five or more count as five), whatever the
    crossers before it went (riders are moved front to back: a later one may go farther; the round keeps them
    in finishing order).  The cursor starts on the hindmost crosser's squares so far (the same square or the
    one just behind are the likeliest), else on the middle of the list."""
    cap = state.scoring.max_squares
    start = state.open_round[-1][1] if state.open_round else min(SQUARES_DEFAULT, cap)
    # "5+…" holds 5 and up, each its own: all count as five rows, but the farther rider finishes ahead (entered in
    # any order, two riders both past 5 were ordered as they were entered)
    top = cap + SQUARES_BEYOND - 1
    # a square a crosser entered before already holds: this rider finishes behind them, the first to reach a
    # square holding its right lane (the order of entry decided places and the bonus, and no screen said so: a
    # screens review)
    held = {n: rid for rid, n in state.open_round}

    def label(n: int) -> str:
        """"3", "6 · counts 5"; a held square "3 · behind red Rouleur" ("behind red" where the rider's role does
        not fit a line, which then drops "counts 5": the order matters more than the rows)."""
        shown = f"{n}+" if n == top else str(n)
        if n not in held:
            return shown + (f"{READING_SEP}counts {cap}" if n > cap else "")
        team = held[n].split(".", 1)[0]
        texts = [f"{shown}{READING_SEP}behind {who}" for who in (rider_label(held[n]), team)]
        return next((t for t in texts if len(t) <= STATUS_CHARS), texts[-1])

    beyond = [leaf(label(n), Command("cross", {"squares": n}), default=n == min(start, top))
              for n in range(cap, top + 1)]
    choices = keep_legal([
        *(leaf(label(n), Command("cross", {"squares": n}), default=n == start) for n in range(0, cap)),
        branch(f"{cap}+…", beyond, default=start >= cap),
    ], legal)
    assert state.crossing is not None
    return Menu(title="Squares past the line", choices=choices, status=rider_label(state.crossing))


def _exhaustion(state: GrandTourState, legal: Callable[[Command], bool]) -> Menu:
    """The exhaustion cards of the rider the prompt names: 0 to 20 in groups of five ("0 to 4" ...; the last takes
    the rest), the cursor on the group of EXHAUSTION_DEFAULT, in the middle of it; 21 to BUTTON_MAX_EXHAUSTION
    under "21 to 40 cards…" (a tired deck carrying its exhaustion over stages holds more than 20).  Every count
    is at most eight presses away."""
    rid = next(r.id for r in state.riders if r.exhaustion is None)

    def groups(first: int, last: int) -> list[list[int]]:
        counts = list(range(first, last + 1))
        out = [counts[i:i + EXHAUSTION_GROUP] for i in range(0, len(counts), EXHAUSTION_GROUP)]
        if len(out) > 1 and len(out[-1]) < EXHAUSTION_GROUP:
            rest = out.pop()
            out[-1] = out[-1] + rest
        return out

    def count(n: int, *, default: bool) -> Choice:
        return leaf(str(n), Command("exhaustion", {"rider": rid, "cards": n}), default=default)

    def group(g: list[int]) -> Choice | None:
        start = EXHAUSTION_DEFAULT if EXHAUSTION_DEFAULT in g else g[len(g) // 2]
        # "to", not "-": at 9 px (an UNDONE on the footer) the hyphen between two digits is lost ("04 cards")
        return branch(f"{g[0]} to {g[-1]} cards", [count(n, default=n == start) for n in g],
                      default=EXHAUSTION_DEFAULT in g)

    more = branch(f"21 to {BUTTON_MAX_EXHAUSTION} cards…", [group(g) for g in groups(21, BUTTON_MAX_EXHAUSTION)])
    choices = keep_legal([*(group(g) for g in groups(0, 20)), more], legal)
    # the title names the rider: the status line under the list is covered by the team's flashing "count
    # exhaustion cards" alert, so the rider whose cards are being entered was on no line of the screen.  The
    # status says what is counted, in the rules' words: behind the stage's news the alert did not show, and the
    # team entering them never read "exhaustion" (an audit; the keeping of half is said when they are in).  The
    # status names the rider too: once a group is open the title is the group's ("0 to 4 cards"), and the news of
    # the rider counted before it ("red Rouleur keeps…") took turns with "all exhaustion cards" on the footer
    return Menu(title=rider_label(rid), choices=choices, player=rid.split(".")[0],
                status=f"{rider_label(rid)}: all exhaustion cards")
