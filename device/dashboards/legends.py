"""What every symbol of each game's dashboard means, in words: the legend page a long NEXT opens.

One list per game of (symbol, meaning), in the order the eye meets them on the dashboard (top to bottom,
left to right).  Kept beside the dashboards so that a change of a dashboard's symbols is a change here
too (the legend test draws every page, and each dashboard's docstring names the same symbols).
"""

from __future__ import annotations

LEGENDS: dict[str, tuple[tuple[str, str], ...]] = {
    "gaslands": (
        ("Lit top bar, arrow", "your activation"),
        ("Name", "your vehicle shown big"),
        ("Flag", "you have pole position"),
        ("ph 3", "the gear phase"),
        ("Big 3 /6", "current gear / max gear"),
        ("Pips", "hazard tokens; the line is the wipeout at 6"),
        ("Bar 7/10", "hull left / hull"),
        ("FIRE", "on fire"),
        ("done", "activated this gear phase"),
        ("Chips right", "your other vehicles: initial (B2: Buggy 2, Bi: Bike beside a Buggy) and gear"),
        ("Chips right", "inverted: 6+ hazards; crossed: wrecked"),
        ("Chips right", "with one or two: dots = hazard tokens, bar = hull left"),
        ("Bottom line", "the table's step (1.1 … 3); on the others' screens, whose: Ana · 1.1"),
        ("YOU WIN! / Ana wins", "at game over, on the top bar: the winner the table named"),
        # two entries: one ran over a page, "WRECKED" alone on the next
        ("Lit banner", "an alert: NOT PERMITTED, YOU PICK, YOU PLACE"),
        ("Lit banner", "an alert: WIPEOUT!, LOST CONTROL, WRECKED"),
    ),
    "thunder_road": (
        ("Lit top bar", "YOUR TURN (else whose turn)"),
        ("roll dice", "roll your movement dice (Ben to roll: Ben's are awaited)"),
        ("R2", "the round"),
        ("S M L R B", "small, medium, large car, Big Rig, bike; lit box: moving now"),
        ("Squares", "damage slots; filled: a token; ?: slots not known"),
        # (marks a screens walkthrough found on a dashboard and not here)
        ("Filled, dark dot", "minor damage (Big Rig, bike): fills a slot, no effect"),
        ("3?", "3 damage tokens, the slots not known"),
        ("Tick", "moved this round"),
        ("Rings", "coasts used (two at most); 1, 2 in narrow columns"),
        ("ON FIRE!, FIRE, F!", "the ON FIRE! token (shorter in narrow columns)"),
        ("OUT", "out of service"),
        ("FIRE+OUT, F!+OUT, F!+O, F!O", "ON FIRE! and out of service"),
        ("Traction, TD", "Big Rig: Traction Drive active this turn"),
        ("X", "eliminated"),
        ("Bottom left", "your command this round; no cmd: your command board is still free"),
        ("3 spaces · Drift", "bottom left while your vehicle moves: how far, and how"),
        ("1 3 5 (bottom right)", "your unused dice; bump M: your M in a bump"),
        ("bumps 1, passed, -", "bumps waiting (not yours); out of this round; no dice left"),
        ("race over", "the race is won (the top bar says by whom)"),
        ("Lit banner", "an alert: roll the Fire die, a re-roll, out of service"),
    ),
    "space_race": (
        ("Top line", "your side, its abilities, the turn (T4)"),
        ("Big 3 /8", "the box you reached, of 8"),
        ("VP", "points scored in the race"),
        ("attempts", "Space Race attempts left this turn"),
        ("next 2+ Ops · 1-4 · 67%", "next box: Ops (or more), winning roll, odds"),
        ("Boxes at the bottom", "the track, lit up to your marker; the block: the rival's marker"),
        # one entry a code: the four on one entry ran over a page, "rounds" alone on the next
        ("2X", "ability: two Space Race attempts a turn"),
        ("HL", "ability: the rival reveals their headline first"),
        ("DIS", "ability: discard a held card at turn end"),
        ("8AR", "ability: eight action rounds a turn"),
        ("1stHL", "the rival's ability: you reveal your headline first"),
        ("ROLL d6", "your die is awaited (the card's event does not happen)"),
    ),
    "grand_tour": (
        ("Top line", "your team, stage 2/3"),
        ("Big number pts", "your tour points"),
        # the order of placing, not a grid place ("your place at the next start line" read as one: a walkthrough)
        ("START", "your turn to place riders at the next start line, 1 first (- : stage 1)"),
        ("PLACE", "at the tour's end: your place in the final classification"),
        ("R, S", "your Rouleur and Sprinteur"),
        ("+1:20 4th", "time behind the leader, place on time among all riders; lead: the leader; x: untracked"),
        # (it stands through the stage it was kept into: "kept into the next stage" read as still to come)
        ("keep 3", "exhaustion cards the rider kept at the last stage's end"),
        ("count", "exhaustion cards still to count"),
        ("Card name", "the specialty card the rider holds"),
        ("Top line flashing", "your team's step: count exhaustion cards, or deal or keep a specialty"),
        ("Lit banner", "WINNER, or a message for your team"),
    ),
}

#: The buttons, the same in every game: the legend's last page.
BUTTONS: tuple[tuple[str, str], ...] = (
    ("SELECT", "next (hold: back)"),
    ("OK", "take it / keep a die"),
    ("BACK", "up; at top undo (hold: 3)"),
    ("NEXT", "the usual / send dice"),
)


#: The buttons in a game whose table enters no dice (the Grand Tour's screens keep the tour sheet): "keep a
#: die" and "send dice" stood in its legend (a walkthrough).
BUTTONS_NO_DICE: tuple[tuple[str, str], ...] = tuple(
    (key, words.removesuffix(" / keep a die").removesuffix(" / send dice")) for key, words in BUTTONS)
NO_DICE = frozenset({"grand_tour"})


def legend(game: str) -> tuple[tuple[str, str], ...]:
    """The legend of ``game``'s dashboard followed by the buttons (a game without one: the buttons)."""
    return LEGENDS.get(game, ()) + (BUTTONS_NO_DICE if game in NO_DICE else BUTTONS)
