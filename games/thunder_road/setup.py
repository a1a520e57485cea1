"""Thunder Road — the setup: the table's options checked and completed (``normalise``), the first event
(``start``) and the state it folds to (``initial``).

The first event carries the whole setup, rule tables included, so replaying a log never reads a file; and
the version of the log (``events``), which says whether the automatic consequences are events of their own
(see :data:`~games.thunder_road.state.EVENTS_VERSION`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from games.core import Event, Illegal, fields

from games.thunder_road.state import EVENTS_VERSION, Board, Player, ThunderRoadState, Vehicle
from games.thunder_road.tables import check_overrides, check_packaged, merge_rows, packaged_tables, tables_from

DEFAULT_FLEET = ("small", "medium", "large")
SETUP_KEYS = ("players", "first_player", "board", "vehicle_types", "commands", "dice", "fire_die")
PLAYER_KEYS = ("name", "vehicles")
BOARD_KEYS = ("tiles", "on_board", "final")
#: the most road tiles a setup may lay (the base game's road is a handful of tiles)
MAX_TILES = 100
#: the most vehicles one player may field: three cars, the Big Rig and the Final Five's five bikes make nine (a
#: tenth, which no box holds, left the dashboard's columns too narrow for their letters: a screens review)
MAX_FLEET = 9


def normalise(options: Mapping[str, Any]) -> dict[str, Any]:
    """Validate the table's setup and return it complete (rule tables included), or raise Illegal."""
    if not isinstance(options, Mapping):
        raise Illegal("the setup must be a TOML table")
    fields.plain(options, "setup")
    fields.only_keys(options, SETUP_KEYS, "setup")
    base = packaged_tables()
    check_packaged(base)
    check_overrides(base, options)
    merged = {
        "vehicle_types": merge_rows(base["vehicle_types"], options.get("vehicle_types"), "vehicle_types"),
        "commands": merge_rows(base["commands"], options.get("commands"), "commands"),
        "dice": merge_rows(base["dice"], options.get("dice"), "dice"),
        "fire_die": dict(options["fire_die"]) if isinstance(options.get("fire_die"), Mapping) else base["fire_die"],
    }
    tables = tables_from(merged)
    kind_names = [k.name for k in tables.kinds]

    raw_players = options.get("players")
    if not isinstance(raw_players, list) or not raw_players:
        raise Illegal('the setup needs players: [[players]] name = "Ana" (2 to 5 players)')
    players = []
    given: list[str] = []  # the names as the setup spells them
    for i, row in enumerate(raw_players, 1):
        if isinstance(row, str):
            row = {"name": row}
        if not isinstance(row, Mapping):
            raise Illegal(f"player {i}: write [[players]] name = \"...\" (and optionally vehicles = [...])")
        name = row.get("name")
        named_well = isinstance(name, str) and name.strip() and "/" not in name and len(name) <= 40
        # first: a misspelt `name` (nmae = "Ana") is named, not told as a missing name; a long one is not quoted
        fields.only_keys(row, PLAYER_KEYS, f"setup: [[players]] {name}" if named_well else f"setup: player {i}")
        if name is not None and not isinstance(name, str):  # (name = 42 was "needs a name")
            raise Illegal(f"player {i}'s name must be a text in quotes (got {fields.show(name)}): name = \"{name}\"")
        if not isinstance(name, str) or not name.strip():
            raise Illegal(f"player {i} needs a name")
        if "/" in name:
            raise Illegal(f"player {i} needs a name without '/' (got {fields.show(name)})")
        fields.text(row, "name", "setup: [[players]]", max_len=40)
        fleet = row.get("vehicles", list(DEFAULT_FLEET))
        if not isinstance(fleet, list) or not fleet or len(fleet) > MAX_FLEET:
            raise Illegal(
                f"{name}: vehicles must be a list of 1 to {MAX_FLEET} vehicles such as [\"small\", \"medium\", \"large\"]"
            )
        fleet = [fields.as_named(k, kind_names) for k in fleet]  # "Big Rig", "Small": the rulebook's own words
        for kind in fleet:
            if kind not in kind_names:
                near = fields.did_you_mean(kind, kind_names) if isinstance(kind, str) else ""
                raise Illegal(f"{name}: unknown vehicle {kind!r}{near}; known vehicles: {', '.join(kind_names)}")
        players.append({"name": name.strip(), "vehicles": list(fleet)})
        given.append(name)
    fields.distinct_names(given, "", "player")  # as written: "Ana" and "ana " are one player at the table
    names: list[str] = [str(p["name"]) for p in players]
    expansion = any(tables.kind(k).cls in ("big_rig", "bike") for p in players for k in p["vehicles"])
    if len(players) < 2:
        raise Illegal(f"{len(players)} player{'' if len(players) == 1 else 's'}: Thunder Road needs 2 to 4 players "
                      "(5 with the Big Rig and the Final Five)")
    if len(players) > 5:
        raise Illegal(f"{len(players)} players: Thunder Road takes 2 to 4 players, 5 at most with the Maximum "
                      "Chrome Big Rig or Final Five")
    if len(players) == 5 and not expansion:
        raise Illegal(
            f"{len(players)} players: the base game takes 2 to 4 players; a 5th needs the Maximum Chrome "
            "Big Rig or Final Five (give a player vehicles = [..., \"big_rig\"] or bikes)"
        )
    first = options.get("first_player", names[0])
    if not isinstance(first, str) or first not in names:
        raise Illegal(f"first_player {fields.show(first)} is not one of the players: {', '.join(names)}")

    board = options.get("board")
    if not isinstance(board, Mapping):
        raise Illegal('the setup needs [board] tiles = 6 (or a list of tile names), on_board = N, final = "..."')
    fields.only_keys(board, BOARD_KEYS, "setup: [board]")
    tiles = board.get("tiles")
    if isinstance(tiles, int) and not isinstance(tiles, bool):
        tiles = [str(i) for i in range(1, fields.whole(board, "tiles", 1, MAX_TILES, "setup: [board]") + 1)]
    if not isinstance(tiles, list) or not tiles or len(tiles) > MAX_TILES or not all(
        isinstance(t, str) and 0 < len(t) <= 40 or isinstance(t, int) and not isinstance(t, bool) and 0 <= t <= 9999
        for t in tiles
    ):
        raise Illegal(
            f"[board] tiles must be the number of road tiles (1 to {MAX_TILES}) or the list of their names "
            f"(at most {MAX_TILES}; got {fields.show(tiles)})"
        )
    tiles = [str(t) for t in tiles]
    if len(set(tiles)) != len(tiles):
        raise Illegal("[board] tiles: two tiles have the same name")
    on_board = board.get("on_board")
    if isinstance(on_board, bool) or not isinstance(on_board, int) or not 1 <= on_board <= len(tiles):
        raise Illegal(f"[board] on_board must say how many tiles lie on the table at once (1 to {len(tiles)})")
    final = board.get("final", tiles[-1])
    if isinstance(final, bool) or not isinstance(final, (str, int)):
        raise Illegal(f"[board] final must be the name of a tile in quotes (got {fields.show(final)})")
    final = str(final)
    if final not in tiles:
        raise Illegal(f"[board] final {final!r} is not one of the tiles: {', '.join(tiles)}")
    if tiles.index(final) < on_board - 1:
        raise Illegal(f"[board] the final tile {final!r} would be behind the lead tile at the start")
    return {
        "players": players,
        "first_player": first,
        "board": {"tiles": tiles, "on_board": on_board, "final": final},
        **merged,
    }



def start(options: Mapping[str, Any]) -> list[Event]:
    """The first event of a new game: the setup, complete, and the version of the log it begins."""
    return [Event("game_started", {"options": normalise(options), "events": EVENTS_VERSION})]


def initial(data: Mapping[str, Any]) -> ThunderRoadState:
    """The state a ``game_started`` event folds to.  A log without ``events`` was written before the
    automatic consequences were events: version 1."""
    version = data.get("events", 1)
    if version not in (1, EVENTS_VERSION):
        raise ValueError(
            f"this log is written in version {version!r} of the Thunder Road events; this Pitboard reads "
            f"versions 1 to {EVENTS_VERSION}"
        )
    options = data["options"]
    tables = tables_from(options)
    players, vehicles = [], []
    for seat, row in enumerate(options["players"]):
        players.append(Player(row["name"], seat))
        counts: dict[str, int] = {}
        for kind in row["vehicles"]:
            counts[kind] = counts.get(kind, 0) + 1
        seen: dict[str, int] = {}
        for kind in row["vehicles"]:
            seen[kind] = seen.get(kind, 0) + 1
            suffix = str(seen[kind]) if counts[kind] > 1 else ""
            vehicles.append(Vehicle(f"{row['name']}/{kind}{suffix}", row["name"], kind))
    b = options["board"]
    board = Board(tuple(b["tiles"]), b["on_board"], b["tiles"].index(b["final"]), b["on_board"] - 1)
    names = [p.name for p in players]
    return ThunderRoadState(
        players=tuple(players),
        vehicles=tuple(vehicles),
        tables=tables,
        board=board,
        first=names.index(options["first_player"]),
        note="game started: roll the movement dice",
        log_version=version,
    )
