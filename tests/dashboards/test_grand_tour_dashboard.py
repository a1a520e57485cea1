"""Golden images of the Grand Tour dashboard (pixel for pixel; regenerate with PITBOARD_REGOLD=1)."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image

from golden_images import check_golden

from device.dashboards.grand_tour import render
from games.core import Command, Match
from games.grand_tour import GAME

GOLDEN = Path(__file__).parent / "golden" / "grand_tour"
SETUP = {"stages": 2, "teams": ["red", "blue", "green"],
         "time_track": {"columns": 12, "start_column": 2, "start_row": 0}}


def _match(*commands: dict[str, Any], setup: dict[str, Any] = SETUP) -> Match:
    m = Match.begin(GAME, setup)
    for c in commands:
        out = m.apply(Command.from_json(c))
        assert out.accepted, (c, out.reason)
    return m


def rnd(*crossed: tuple[str, int], pack: bool = False) -> dict[str, Any]:
    return {"type": "finish_round", "crossed": [{"rider": r, "squares": s} for r, s in crossed], "pack": pack}


R1 = rnd(("green.sprinteur", 3), ("red.sprinteur", 2))
R2 = rnd(("blue.rouleur", 4), ("red.rouleur", 2), ("green.rouleur", 1), pack=True)
R3 = rnd(("blue.sprinteur", 1))
EX = [{"type": "exhaustion", "rider": r, "cards": n} for r, n in
      [("red.rouleur", 5), ("red.sprinteur", 2), ("blue.rouleur", 0), ("blue.sprinteur", 3),
       ("green.rouleur", 1), ("green.sprinteur", 4)]]
S2 = [rnd(("red.rouleur", 5), ("blue.sprinteur", 2)), rnd(("red.sprinteur", 1), ("green.rouleur", 1),
                                                          ("green.sprinteur", 0), ("blue.rouleur", 0))]

#: The optional specialties: each team is dealt 2 cards and keeps 1 for a rider before stage 1.
SPECIALTIES = {**SETUP, "specialties": True}
DEALT = [{"type": "deal_specialties", "team": "red", "cards": ["1", "2"]},
         {"type": "keep_specialty", "team": "red", "card": "2", "rider": "rouleur"},
         {"type": "deal_specialties", "team": "blue", "cards": ["3", "4"]},
         {"type": "keep_specialty", "team": "blue", "card": "3", "rider": "sprinteur"},
         {"type": "deal_specialties", "team": "green", "cards": ["5", "6"]},
         {"type": "keep_specialty", "team": "green", "card": "6", "rider": "rouleur"}]

STATES = {
    "racing_red": (lambda: _match(R1), 0, True),
    "between_red_on": (lambda: _match(R1, R2, R3, EX[0]), 0, True),
    "between_red_off": (lambda: _match(R1, R2, R3, EX[0]), 0, False),
    "stage2_blue": (lambda: _match(R1, R2, R3, *EX), 1, True),
    "over_red_on": (lambda: _match(R1, R2, R3, *EX, *S2), 0, True),
    "over_green": (lambda: _match(R1, R2, R3, *EX, *S2), 2, True),
    "specialties_red_on": (lambda: _match(setup=SPECIALTIES), 0, True),
    "specialties_red_off": (lambda: _match(setup=SPECIALTIES), 0, False),
    "racing_red_specialty": (lambda: _match(*DEALT, R1, setup=SPECIALTIES), 0, True),
}


@pytest.mark.parametrize("name", sorted(STATES))
def test_golden(name: str, tmp_path: Path) -> None:
    build, seat, blink = STATES[name]
    check_golden(render(build().views()[seat], blink_on=blink), GOLDEN / f"{name}.png", tmp_path)


def test_the_winner_flashes() -> None:
    m = _match(R1, R2, R3, *EX, *S2)
    winners = [v for v in m.views() if v.winner]
    assert len(winners) == 1
    v = winners[0]
    assert render(v, blink_on=True).tobytes() != render(v, blink_on=False).tobytes()


def test_app_status_line_and_refusal_notice() -> None:
    """The app's button-menu line replaces the bottom line; its refusal notice flashes over the middle."""
    import dataclasses

    from games.core import Alert

    v = _match(R1).views()[0]
    menu = dataclasses.replace(v, prompt="> green.sprinteur +5 (12/38) OK")
    image = render(menu, blink_on=True)
    assert image.tobytes() != render(v, blink_on=True).tobytes()
    note = dataclasses.replace(v, alerts=(Alert("refused", "list the crossers in finishing order", None),))
    assert render(note, blink_on=True).tobytes() != render(note, blink_on=False).tobytes()
    path = GOLDEN / "status_menu_red.png"
    if os.environ.get("PITBOARD_REGOLD") == "1":
        image.save(path)
    assert path.exists(), f"no golden image {path}; run with PITBOARD_REGOLD=1 to create it, then look at it"
    assert Image.open(path).convert("1").tobytes() == image.tobytes()


def test_the_menu_line_leaves_both_riders_time_gaps_on_the_screen() -> None:
    """The team counting its exhaustion cards lost its second rider's line under the menu's
    "> red Sprinteur (2/8) OK": its time gap to the leader was on no screen while its cards were counted."""
    import dataclasses

    v = _match(R1, R2, R3, EX[0]).views()[0]
    menu = dataclasses.replace(v, prompt="> red Sprinteur (2/8) OK")
    sprinteur = v.riders[1]
    later = dataclasses.replace(menu, riders=(v.riders[0], dataclasses.replace(sprinteur, gap="+2:30",
                                                                                  gap_seconds=150)))
    assert render(menu, blink_on=False).tobytes() != render(later, blink_on=False).tobytes()
    kept = dataclasses.replace(menu, riders=(dataclasses.replace(v.riders[0], keep=1), sprinteur))
    assert render(menu, blink_on=False).tobytes() != render(kept, blink_on=False).tobytes()
    other = dataclasses.replace(menu, points=v.points + 7, start_position=3)  # the points and start line stay too
    assert render(menu, blink_on=False).tobytes() != render(other, blink_on=False).tobytes()
    # the winner's WINNER banner, with the menu line up, leaves the first rider's line too
    won = dataclasses.replace(menu, winner=True)
    moved = dataclasses.replace(won, riders=(dataclasses.replace(v.riders[0], gap="+3:30", gap_seconds=210),
                                             sprinteur))
    assert render(won, blink_on=True).tobytes() != render(moved, blink_on=True).tobytes()


def test_the_final_classification_shows_each_teams_place() -> None:
    """At the tour's end the screen shows the team's place (the START of a next stage there is none of):
    two teams with the same points but other places look different (found by the OLED audit)."""
    from dataclasses import replace

    from device.dashboards.grand_tour import render as draw_team
    from games.grand_tour.views import TeamView

    base = TeamView(player="red", team="red", points=4, rank=2, stage=2, stages=2, phase="tour over",
                    start_position=None, riders=(), winner=False, cooperation=True, prompt="")
    second, third = draw_team(base, blink_on=True), draw_team(replace(base, rank=3), blink_on=True)
    assert second.tobytes() != third.tobytes()


def test_a_twelve_letter_team_name_is_shown_whole() -> None:
    """The setup takes team names of up to 12 letters, and "INEOS_GRENAD" showed as "INEOS_GREN…": the name
    takes the header's room the stage number leaves."""
    import dataclasses

    from device.dashboards import grand_tour as dash

    drawn: list[str] = []
    real = dash.fit_text

    def spy(draw: Any, box: Any, text: str, **kw: Any) -> int:
        size = real(draw, box, text, **kw)
        from device.dashboards.common import text_width

        drawn.append(text if text_width(text, size) <= box[2] - box[0] else text + " (cut)")
        return size

    view = dataclasses.replace(_match(R1).views()[0], team="ineos_grenad")
    try:
        dash.fit_text = spy
        dash.render(view, blink_on=True)
    finally:
        dash.fit_text = real
    assert "INEOS_GRENAD" in drawn and "St 1/2" in drawn, drawn


def test_every_screen_names_the_tours_winner_and_why_on_equal_points() -> None:
    """A walkthrough: at the tour's end black's screen flashed WINNER, red's (6 pts, as black) read PLACE 2 and
    nothing named black or said why ("Most tour points; equal points: better place in the last stage"); the news
    turned for ~15 s and went. The other screens' headers say who won; the news says why."""
    import dataclasses

    from device.dashboards import grand_tour as dash

    m = _match(R1, R2, R3, *EX, *S2)
    over = m.views()
    winner = next(v for v in over if v.winner).team
    from device.dashboards.common import text_width

    drawn: list[str] = []
    real = dash.fit_text

    def spy(draw: Any, box: Any, text: str, **kw: Any) -> int:  # what is drawn whole, "(cut)" marks the rest
        size = real(draw, box, text, **kw)
        drawn.append(text if text_width(text, size) <= box[2] - box[0] else text + " (cut)")
        return size

    try:
        dash.fit_text = spy
        for v in over:
            drawn.clear()
            dash.render(v, blink_on=False)
            assert (f"{winner} won" in drawn) is (not v.winner), (v.team, drawn)
            assert not any(t.endswith("(cut)") for t in drawn), drawn
        drawn.clear()  # the longest names the setup takes: the winner whole, alone ("PELO…" beside "ineos_grenad w…")
        dash.render(dataclasses.replace(over[2], team="peloton_blue", winners=("ineos_grenad",)), blink_on=False)
        assert "ineos_grenad won" in drawn and not any(t.endswith("(cut)") for t in drawn), drawn
    finally:
        dash.fit_text = real
    points = {v.team: v.points for v in over}
    assert f"Tour won by {winner} with {points[winner]} pts;" in over[0].news


def test_a_riders_specialty_card_is_on_the_screen_while_the_stage_is_raced() -> None:
    """"Before stage 1 each player gets 2, keeps 1, assigns it to the sprinteur or the rouleur … Some act once
    per stage, some permanently."  Only a 12 s news said which card a rider kept; a card acting all tour long
    was on no screen.  The rider's line names it while a stage is raced; between stages the cards kept are
    shown there, as before."""
    racing = _match(*DEALT, R1, setup=SPECIALTIES).views()
    red, blue = racing[0], racing[1]
    assert [r.specialty for r in red.riders] == ["Specialty 2", None]
    drawn = np.asarray(render(red, blink_on=True), dtype=bool)
    plain = np.asarray(render(replace(red, riders=tuple(replace(r, specialty=None) for r in red.riders)),
                              blink_on=True), dtype=bool)
    rouleur, sprinteur = slice(42, 52), slice(53, 63)
    assert (drawn[rouleur] != plain[rouleur]).any() and (drawn[sprinteur] == plain[sprinteur]).all()
    assert [r.specialty for r in blue.riders] == [None, "Specialty 3"]
    # from stage 2 on too, where the exhaustion cards kept into the stage stand beside it (a card acting
    # "permanently" went under "keep 3")
    stage2 = _match(*DEALT, R1, R2, R3, *EX, setup=SPECIALTIES).views()[0]
    assert stage2.phase == "racing" and stage2.stage == 2 and stage2.riders[0].keep is not None
    drawn2 = np.asarray(render(stage2, blink_on=True), dtype=bool)
    card = replace(stage2, riders=(stage2.riders[0], replace(stage2.riders[1], specialty="Specialty 2")))
    # the rouleur's line shows its card, as the sprinteur's does once given the same card (its right-hand end: the
    # time gaps before the names, "+1:00 3rd", are the riders' own)
    assert (drawn2[rouleur, 90:] == np.asarray(render(card, blink_on=True), dtype=bool)[sprinteur, 90:]).all()


def test_the_team_being_dealt_or_keeping_a_specialty_has_its_header_flash() -> None:
    """Before stage 1 each team in turn is dealt 2 specialty cards, then each in turn keeps 1: once its menu's
    page had gone (20 s idle), its screen showed a plain dashboard, nothing asked of it.  Its header flashes, as a
    team's does while its exhaustion cards are to be counted; the teams not served now do not (every team's
    flashed at once, and the legend's "your team's step" told them all to act), nor a tour without them."""
    def lit(m: Match) -> list[bool]:
        return [bool(np.asarray(render(v, blink_on=True), dtype=bool)[2:10, 40:70].mean() > 0.5) for v in m.views()]

    assert lit(_match(setup=SPECIALTIES)) == [True, False, False]  # red is dealt first
    order = [DEALT[0], DEALT[2], DEALT[4]]  # every team dealt, in seating order: then each keeps, in turn
    assert lit(_match(*order[:1], setup=SPECIALTIES)) == [False, True, False]
    assert lit(_match(*order, setup=SPECIALTIES)) == [True, False, False]
    assert lit(_match(*order, DEALT[1], setup=SPECIALTIES)) == [False, True, False]
    assert lit(_match()) == [False, False, False]
