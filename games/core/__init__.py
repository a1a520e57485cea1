"""The event-sourced machinery every game shares.

A game is declared, in the manner of boardgame.io, by a handful of pure functions (see :class:`Game`):
``start(options)`` turns the table's options into the first event, ``decide(state, command)`` checks a
command against the rules and turns it into events (or raises :class:`Illegal` with a reason a player
understands), ``evolve(state, event)`` folds one event into the state, ``prompt(state)`` says what the table
must do next, ``views(state)`` what each player's screen shows and ``menu(state)`` what a player can do
now with the buttons (:mod:`games.core.table_input`).

:class:`Match` keeps the log and the fold.  The log is the truth: the state is always ``fold(evolve, live
events)``.  Undo is itself an event that retires the newest live decision, so undo is free and repeatable
back to the start of the game, and the log never loses what happened.
"""

from games.core.model import (
    Alert,
    Command,
    Decision,
    Event,
    Game,
    Illegal,
    Prompt,
    Record,
    find,
)
from games.core.match import Match, Outcome
from games.core.table_input import Choice, DiceRequest, Menu

__all__ = [
    "Alert",
    "Choice",
    "DiceRequest",
    "Menu",
    "Command",
    "Decision",
    "Event",
    "Game",
    "Illegal",
    "Match",
    "Outcome",
    "Prompt",
    "Record",
    "find",
]
