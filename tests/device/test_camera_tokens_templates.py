"""The camera's templates and hazard tokens through ``CameraInput``, as an audit of the loop met them at a
Gaslands table: a template sent once was never sent again for that vehicle (an illegal pick in a later gear
went unflagged), tokens a wipeout took off were offered to be added again (a second wipeout), and a long OK
added tokens by a count the log had overtaken."""

from __future__ import annotations

from types import SimpleNamespace as NS
from typing import Any

from device.camera_input import CameraInput
from games.core import Command


class Calls:
    def __init__(self) -> None:
        self.applied: list[Command] = []
        self.notices: dict[tuple[str, str | None], str] = {}

    def apply(self, command: Command, **_: Any) -> Any:
        self.applied.append(command)
        return NS(accepted=True)

    def notify(self, kind: str, text: str, player: str | None, **_: Any) -> None:
        self.notices[(kind, player)] = text

    def withdraw(self, kind: str) -> None:
        self.notices = {k: v for k, v in self.notices.items() if k[0] != kind}


def _template_menu() -> Any:
    return NS(template=lambda name, hand, edge: Command("choose_template", {"template": name, "hand": hand}),
              dice=None, hazards=None)


def _lying(vehicle: str, name: str = "hairpin") -> Any:
    return NS(templates=[NS(name=name, hand="left", attached_to=vehicle, edge="front")], tokens={}, cars=[],
              misfits=[])


def _frames(ci: CameraInput, calls: Calls, vehicle: str, table: Any, n: int) -> int:
    before = len(calls.applied)
    for _ in range(n):
        ci._template(table, NS(vehicle=vehicle, player="Alice"), _template_menu(), calls.apply, calls.notify,
                     calls.withdraw, (), 0.0)
    return len(calls.applied) - before


def test_a_template_is_sent_again_at_the_vehicles_next_activation() -> None:
    ci, calls = CameraInput(NS(), settle_frames=3), Calls()
    assert _frames(ci, calls, "rust", _lying("rust"), 6) == 1  # once while it lies there (a refusal stays)
    # another vehicle's activation comes between: Rust Bucket's next pick is a new one, even of a Hairpin
    assert _frames(ci, calls, "brick", _lying("brick", "turn"), 4) == 1
    assert _frames(ci, calls, "rust", _lying("rust"), 4) == 1  # before: never sent again, never flagged
    # a hand over the refused Hairpin for a while is no new pick: it is not sent (and refused) again
    empty = NS(templates=[], tokens={}, cars=[], misfits=[])
    assert _frames(ci, calls, "rust", empty, 5) == 0
    assert _frames(ci, calls, "rust", _lying("rust"), 4) == 0
    # the vehicle's next activation with nobody between (the one car left, gear 5 in phase 4): a new pick
    ci.template_step_started("rust")
    assert _frames(ci, calls, "rust", _lying("rust"), 4) == 1


def _views(hazards: int) -> list[Any]:
    return [NS(player="Alice", vehicles=[NS(id="rust", name="Rust Bucket", hazards=hazards)])]


def _count(ci: CameraInput, calls: Calls, table: int, log: int) -> None:
    for _ in range(3):
        ci._tokens(NS(tokens={"rust": table}), _views(log), calls.notify, calls.withdraw, 0.0)


def test_tokens_a_wipeout_took_off_are_to_go_not_to_add() -> None:
    hazards = _template_menu()
    hazards.hazards = lambda vehicle, n: Command("gain_hazard", {"vehicle": vehicle, "count": n})
    ci, calls = CameraInput(NS(), settle_frames=3), Calls()
    _count(ci, calls, 7, 7)
    assert ci.mismatches == []
    _count(ci, calls, 7, 0)  # the wipeout cleared the log; the tokens lie in the zone still
    assert calls.notices[("hazard_mismatch", "Alice")] == "Rust Bucket: take 7 hazard tokens off (log 0)"
    assert ci.extra_hazards(hazards, _views(0)) == []  # a long OK does not add them back (a second wipeout)
    _count(ci, calls, 0, 0)  # taken off
    assert ci.mismatches == [] and ("hazard_mismatch", "Alice") not in calls.notices
    _count(ci, calls, 2, 0)  # tokens gained since, laid before they were entered: to add
    assert calls.notices[("hazard_mismatch", "Alice")] == "Rust Bucket: 2 hazard tokens seen, log 0 (hold OK)"
    assert [c.args["count"] for c in ci.extra_hazards(hazards, _views(0))] == [2]
    # an undo of those two (the log back to 0) is no wipeout: they are to be added again, not taken off
    _count(ci, calls, 2, 2)
    ci.log_rewound(_views(0))
    _count(ci, calls, 2, 0)
    assert calls.notices[("hazard_mismatch", "Alice")] == "Rust Bucket: 2 hazard tokens seen, log 0 (hold OK)"
    # (from review) after a wipeout, an unrelated undo does not make its tokens addable again
    _count(ci, calls, 2, 2)
    _count(ci, calls, 7, 7)
    _count(ci, calls, 7, 0)
    ci.log_rewound(_views(0))  # e.g. a hazard given to the wrong car, taken back
    _count(ci, calls, 7, 0)
    assert calls.notices[("hazard_mismatch", "Alice")] == "Rust Bucket: take 7 hazard tokens off (log 0)"
    assert ci.extra_hazards(hazards, _views(0)) == []


def test_a_long_ok_adds_what_the_log_lacks_now() -> None:
    """Two tokens counted against a log of 0; one was entered with the menu since (the table is read every
    fifth frame): a long OK added 2 (log 3 for 2 on the table).  It adds what the log lacks when OK is held."""
    hazards = _template_menu()
    hazards.hazards = lambda vehicle, n: Command("gain_hazard", {"vehicle": vehicle, "count": n})
    ci, calls = CameraInput(NS(), settle_frames=3), Calls()
    _count(ci, calls, 2, 0)
    assert [c.args["count"] for c in ci.extra_hazards(hazards, _views(1))] == [1]
    assert ci.extra_hazards(hazards, _views(2)) == []


def test_hold_ok_is_offered_only_where_it_works() -> None:
    """"(hold OK)" stood on screens where a long OK answers "hazard tokens are added during an activation",
    and on the screens of players whose step it was not (their long OK would not enter them)."""
    ci, calls = CameraInput(NS(), settle_frames=3), Calls()
    for takes, chooser, said in ((True, "Alice", " (hold OK)"), (False, "Alice", ""), (True, "Bob", "")):
        for _ in range(3):
            ci._tokens(NS(tokens={"rust": 2}), _views(0), calls.notify, calls.withdraw, 0.0, takes=takes,
                       chooser=chooser)
        assert calls.notices[("hazard_mismatch", "Alice")] == f"Rust Bucket: 2 hazard tokens seen, log 0{said}"


def test_a_standing_camera_notice_does_not_hide_the_games_alert(tmp_path) -> None:
    """(From the audit.)  After a wipeout Alice's menu page showed only "take 7 hazard tokens off": the
    game's own LOST CONTROL alert was never on her screen while the notice stood.  They take turns."""
    from device.app import App, open_match, setup_options
    from device.buttons import ScriptedButtons
    from games.core import Alert
    from device.store import Store
    from games import game_package

    module = game_package("gaslands")
    with Store(tmp_path / "g.sqlite") as store:
        _, match, _ = open_match(store, module, setup_options(module, None))
        app = App(module, match, buttons=ScriptedButtons(), displays=NS(show=lambda p, i: True), clock=lambda: 0.0)
        app.notify("hazard_mismatch", "Rust Bucket: take 7 hazard tokens off (log 0)", "Alice", until=None)
        view = NS(alerts=(Alert("lost_control", "LOST CONTROL: Rust Bucket", "Alice"),))
        text, _, stands = app._alert_text("Alice", view)
        assert text == "LOST CONTROL: Rust Bucket · Rust Bucket: take 7 hazard tokens off (log 0)" and stands
        app.notify("info", "nothing to choose now", "Alice")  # a passing notice still takes the line
        app.withdraw("hazard_mismatch")
        assert app._alert_text("Alice", view)[0] == "nothing to choose now"


def test_a_template_the_camera_will_not_take_is_said_why() -> None:
    """(From the audit.)  Two templates against the active car (the refused Hairpin left beside the new pick),
    or one laid against another car: nothing was taken and nothing said."""
    ci, calls = CameraInput(NS(), settle_frames=3), Calls()
    views = [NS(player="Alice", vehicles=[NS(id="rust", name="Rust Bucket", hazards=0)]),
             NS(player="Bob", vehicles=[NS(id="brick", name="The Brick", hazards=0)])]

    def frames(table: Any, n: int) -> int:
        before = len(calls.applied)
        for _ in range(n):
            ci._template(table, NS(vehicle="rust", player="Alice"), _template_menu(), calls.apply, calls.notify,
                         calls.withdraw, views, 0.0)
        return len(calls.applied) - before

    two = NS(templates=[NS(name="hairpin", hand="left", attached_to="rust", edge="front"),
                        NS(name="gentle", hand="right", attached_to="rust", edge="front")], cars=[], misfits=[])
    assert frames(two, 2) == 0 and ("template_seen", "Alice") not in calls.notices  # not before it holds
    assert frames(two, 1) == 0
    assert calls.notices[("template_seen", "Alice")] == "2 templates at Rust Bucket: take away all but the one to use"
    other = NS(templates=[NS(name="medium_straight", hand=None, attached_to="brick", edge="front")], cars=[],
               misfits=[])
    ci.new_prompt()
    calls.withdraw("template_seen")
    empty = NS(templates=[], cars=[], misfits=[])
    assert frames(empty, 1) == 0  # the step begins with nothing lying there
    assert frames(other, 3) == 0
    assert calls.notices[("template_seen", "Alice")] == "the Medium Straight lies against The Brick, not Rust Bucket"
    assert frames(_lying("rust", "gentle"), 3) == 1  # laid right: taken, and the words go
    assert ("template_seen", "Alice") not in calls.notices


def test_a_template_left_from_another_cars_move_is_not_taken_for_a_wrong_pick() -> None:
    """The Brick's template from its own move, still lying when Rust Bucket's step begins, is no pick of Alice's."""
    ci, calls = CameraInput(NS(), settle_frames=3), Calls()
    left = NS(templates=[NS(name="turn", hand="left", attached_to="brick", edge="front")], cars=[], misfits=[])
    for _ in range(6):
        ci._template(left, NS(vehicle="rust", player="Alice"), _template_menu(), calls.apply, calls.notify,
                     calls.withdraw, (), 0.0)
    assert calls.applied == [] and ("template_seen", "Alice") not in calls.notices


def test_the_hint_follows_the_step_and_games_without_tokens_have_no_zones() -> None:
    """(From review.)  "(hold OK)" stood into the next player's step, where Alice's long OK is not hers to
    give; a game with no hazard tokens (Thunder Road) read an object in a seat's zone as "1 hazard tokens"."""
    from device.camera_input import logged_hazards

    ci, calls = CameraInput(NS(), settle_frames=3), Calls()
    _count(ci, calls, 1, 0)
    assert calls.notices[("hazard_mismatch", "Alice")] == "Rust Bucket: 1 hazard token seen, log 0 (hold OK)"
    ci.post_mismatches(calls.notify, calls.withdraw, 0.0, takes=True, chooser="Bob")  # Bob's step begins
    assert calls.notices[("hazard_mismatch", "Alice")] == "Rust Bucket: 1 hazard token seen, log 0"
    road = [NS(player="Ana", vehicles=[NS(id="Ana/small", name="Small car")])]  # vehicles without hazards
    assert logged_hazards(road) == {}



def test_tokens_laid_as_the_skid_dice_show_them_are_not_entered_twice() -> None:
    """Gaslands 1.4: the skid dice show HAZARD and SLIDE, the table lays their two tokens (the rules give
    them at 1.5).  The camera said "3 hazard tokens seen, log 1 (hold OK)", a long OK entered 2, and 1.5
    gave 2 more: 5 in the log for 3 on the table."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parents[1] / "games"))
    from gaslands_helpers import Table

    from games.gaslands import GAME
    from games.gaslands.rules import views

    t = Table(("Alice", ["car"]), ("Bob", ["buggy"]), pole="Alice")
    t.patch("alice-1", hazards=1)
    t.to_skid_check("gentle")
    t.ok("skid_roll", faces=["SHIFT", "HAZARD", "SLIDE"])
    assert t.step == "1.4 apply SHIFT results"
    ci, calls = CameraInput(NS(), settle_frames=3), Calls()
    menu = GAME.menu(t.state)

    def read(n: int) -> None:
        for _ in range(3):
            ci._tokens(NS(tokens={"alice-1": n}), views(t.state), calls.notify, calls.withdraw, 0.0, chooser="Alice")

    read(3)  # laid as the dice show them
    assert ci.mismatches == [] and ci.extra_hazards(menu, views(t.state), "Alice") == []
    read(1)  # not laid yet: the log is right until 1.5
    assert ci.mismatches == []
    read(4)  # one more than the dice give (a collision's, say): that one is to add
    assert calls.notices[("hazard_mismatch", "Alice")] == ("Alice's Car: 4 hazard tokens seen, log 1 + 2 "
                                                          "to gain (hold OK)")
    for command in ci.extra_hazards(menu, views(t.state), "Alice"):
        t.ok(command.type, **command.args)
    t.ok("end_shifts")
    assert t.v("alice-1").hazards == 4  # 1 + the long OK's 1 + 1.5's 2 (before: 1 + 3 + 2 = 6, a wipeout)
    read(4)
    assert ci.mismatches == []


def test_another_template_laid_at_1_2_than_the_one_picked_is_told() -> None:
    """"Touch-move rule: once the player touches a permitted template at 1.1 they must use it." [seed]  The
    Gentle picked at 1.1 (with the buttons, or seen), a Hairpin laid against the car at 1.2: the camera said
    nothing, and the car moved by a template the log does not have."""
    import sys
    from pathlib import Path

    import numpy as np

    sys.path.insert(0, str(Path(__file__).parents[1] / "games"))
    from gaslands_helpers import Table

    from device.camera import Frame
    from games.gaslands import GAME
    from games.gaslands.rules import prompt as gaslands_prompt
    from games.gaslands.rules import views

    t = Table(("Alice", ["car"]), ("Bob", ["buggy"]), pole="Alice")
    t.ok("choose_template", template="gentle")
    assert t.step == "1.2 place template" and GAME.menu(t.state).placing == "gentle"
    table = _lying("alice-1", "hairpin")
    # the table is read every fifth frame at 1.2, as at other steps (at 1.1 every frame: a pick is awaited)
    ci, calls = CameraInput(NS(read_table=lambda image: table), settle_frames=3, table_every=5), Calls()

    def frames(n: int) -> None:
        n *= 5
        for i in range(n):
            ci.on_frame(Frame(np.zeros((8, 8, 3), np.uint8), 0.0, i), gaslands_prompt(t.state), GAME.menu(t.state),
                        typing=False, views=views(t.state), apply=calls.apply, notify=calls.notify,
                        withdraw=calls.withdraw, now=0.0)

    frames(3)
    assert calls.notices[("template_seen", "Alice")] == ("the Hairpin lies at Alice's Car: the Gentle was picked "
                                                         "(touch-move: use it)")
    assert calls.applied == []  # told, nothing sent: the pick stands
    table.templates[0].name = "gentle"
    frames(3)
    assert ("template_seen", "Alice") not in calls.notices
    table.templates[0].name = "hairpin"
    frames(3)
    t.ok("place_template")  # on: the words go with the step
    frames(1)
    assert ("template_seen", "Alice") not in calls.notices


def test_a_zone_under_a_hand_keeps_its_count_then_is_said_not_counted() -> None:
    """A hand over a zone (the camera answers "cannot count") withdrew its count's words at once and they
    came back when it lifted; a zone never counted again said nothing, so nobody knew the camera no longer
    checked those tokens."""
    from device.camera_input import UNCLEAR_S

    ci, calls = CameraInput(NS(), settle_frames=3), Calls()

    def read(n: int | None, now: float) -> None:
        for k in range(3):
            ci._tokens(NS(tokens={"rust": n}), _views(0), calls.notify, calls.withdraw, now + k * 0.1, chooser="Alice")

    read(2, 0.0)
    counted = "Rust Bucket: 2 hazard tokens seen, log 0 (hold OK)"
    assert calls.notices[("hazard_mismatch", "Alice")] == counted
    read(None, 1.0)  # a hand over the zone
    assert calls.notices[("hazard_mismatch", "Alice")] == counted and len(ci.mismatches) == 1
    read(2, 3.0)  # lifted: the same words, never gone
    assert calls.notices[("hazard_mismatch", "Alice")] == counted
    read(None, 4.0)
    read(None, 4.0 + UNCLEAR_S)  # covered or unclear for long: said so, and its stale count goes
    assert calls.notices[("hazard_mismatch", "Alice")] == ("Rust Bucket: hazard tokens not counted: is their zone "
                                                           "covered?")
    assert ci.mismatches == []
    read(0, 20.0)
    assert ("hazard_mismatch", "Alice") not in calls.notices


def _views_due(hazards: int, due: int = 0) -> list[Any]:
    return [NS(player="Alice", vehicles=[NS(id="rust", name="Rust Bucket", hazards=hazards, hazards_due=due)])]


def test_a_count_kept_under_a_hand_is_not_judged_against_a_log_that_moved() -> None:
    """(from review) A zone's last count is kept while a hand is over it, but only while the log says of it what
    it said then: 1.5 gave 2 tokens while the hand laid them, and the screen said "1 hazard token seen, log
    3"; after an undo of a gain with a hand over the zone, "3 seen, log 2 (hold OK)", and a long OK entered 1."""
    menu = NS(hazards=lambda v, n: Command("gain_hazard", {"vehicle": v, "count": n}))
    ci, calls = CameraInput(NS(), settle_frames=3), Calls()

    def read(n: int | None, views: list[Any], now: float) -> None:
        for k in range(3):
            ci._tokens(NS(tokens={"rust": n}), views, calls.notify, calls.withdraw, now + k * 0.1, chooser="Alice")

    read(1, _views_due(1, 2), 0.0)  # 1.4: the two tokens 1.5 gives not laid yet (the log is right)
    assert ci.mismatches == []
    read(None, _views_due(3), 1.0)  # 1.5 gave them while a hand lays them
    assert ("hazard_mismatch", "Alice") not in calls.notices and ci.mismatches == []
    read(3, _views_due(3), 2.0)
    assert ci.mismatches == []
    ci.log_rewound(_views_due(2))  # an undo of a gain, a hand taking the token back off
    read(None, _views_due(2), 3.0)
    assert ("hazard_mismatch", "Alice") not in calls.notices and ci.extra_hazards(menu, _views_due(2), "Alice") == []


def test_tokens_to_take_off_count_those_still_to_gain() -> None:
    """(from review) Log 3, the skid dice show a HAZARD (1 to gain), 4 tokens laid; a SHIFT discards a hazard
    token (log 2): one token is to go, not two."""
    ci, calls = CameraInput(NS(), settle_frames=3), Calls()
    for views in (_views_due(3, 1), _views_due(2, 1)):
        for k in range(3):
            ci._tokens(NS(tokens={"rust": 4}), views, calls.notify, calls.withdraw, k * 0.1, chooser="Alice")
    assert calls.notices[("hazard_mismatch", "Alice")] == "Rust Bucket: take 1 hazard token off (log 2 + 1 to gain)"


def _seats(*players: str) -> list[Any]:
    return [NS(player=p, vehicles=[NS(id=p.lower(), name=f"{p}'s car", hazards=0)]) for p in players]


def test_a_player_whose_tokens_have_no_zone_is_told_once_on_their_screen() -> None:
    """A fifth player at a table calibrated with four token zones (p1..p4, the default and `pitboard markers`'
    four cards): the camera counted the others' hazard tokens and never theirs, and nothing said so."""
    ci, calls = CameraInput(NS(), settle_frames=3), Calls()
    posted: list[tuple[str, str | None]] = []

    def notify(kind: str, text: str, player: str | None, **kw: Any) -> None:
        posted.append((kind, player))
        calls.notify(kind, text, player, **kw)

    views = _seats("Ann", "Ben", "Cat", "Dee", "Eve")
    zones = {"p1": 0, "p2": 0, "p3": None, "p4": 0}  # p3 under a hand: a zone all the same
    for _ in range(4):
        ci._tokens(NS(tokens=zones), views, notify, calls.withdraw, 0.0)
    assert posted.count(("token_zone", "Eve")) == 1  # once, not at every read of the table
    assert calls.notices[("token_zone", "Eve")] == ("HAZARDS: the camera does not count Eve's hazard tokens (no token "
                                                    "zone p5 on the table): enter them with the menu")
    assert [k for k in posted if k[0] == "token_zone"] == [("token_zone", "Eve")]
    # the zones changed (a tray zone moved, a card added): said again, to whom it is still so
    ci._tokens(NS(tokens={**zones, "x": 0}), views, notify, calls.withdraw, 0.0)
    assert [k for k in posted if k[0] == "token_zone"] == [("token_zone", "Eve")] * 2
    # a zone named after the vehicle (or the player) is theirs too
    ci._tokens(NS(tokens={**zones, "eve": 0, "Dee": 0}), views, notify, calls.withdraw, 0.0)
    assert [k for k in posted if k[0] == "token_zone"] == [("token_zone", "Eve")] * 2
    two = [NS(player="Ann", vehicles=[NS(id="a1", name="Rust Bucket", hazards=0), NS(id="a2", name="Brick", hazards=0)])]
    ci._tokens(NS(tokens={"a1": 0}), two, notify, calls.withdraw, 0.0)
    assert calls.notices[("token_zone", "Ann")].startswith("HAZARDS: the camera does not count Brick's hazard tokens")
    # a table with no token zones counts nobody's: nothing to tell one player (nor in a game without hazards)
    ci, posted[:] = CameraInput(NS(), settle_frames=3), []
    ci._tokens(NS(tokens={}), views, notify, calls.withdraw, 0.0)
    ci._tokens(NS(tokens={"p1": 0}), [NS(player="Ann", vehicles=[NS(id="r", name="Rig")])] * 2, notify,
               calls.withdraw, 0.0)
    assert posted == []


def test_the_no_zone_notice_stands_until_each_of_its_pieces_was_seen() -> None:
    """A review: a player with many vehicles without a zone got a notice of many pieces, withdrawn after 15 s
    before its last pieces turned (a chooser's footer turns them every other 2 s)."""
    from device.dashboards.pages import footer_pieces

    ci, until = CameraInput(NS(), settle_frames=3), {}

    def notify(kind: str, text: str, player: str | None, **kw: Any) -> None:
        until[player] = (text, kw["until"])

    many = [NS(player="Ann", vehicles=[NS(id=f"v{k}", name=f"Interceptor Mark {k}", hazards=0) for k in range(6)])]
    ci._tokens(NS(tokens={"x": 0}), many, notify, lambda kind: None, 100.0)
    text, end = until["Ann"]
    assert len(footer_pieces(text)) > 4 and end - 100.0 >= 4.0 * len(footer_pieces(text)) > 15.0


def test_fewer_tokens_seen_than_the_log_asks_whether_one_lies_on_another() -> None:
    """An independent audit: a token resting on another (up to 4 mm apart) is one to the camera from overhead,
    and the screen said only "5 seen, log 6".  The players can tell a token not taken from one on a pile; the
    words name both."""
    ci, calls = CameraInput(NS(), settle_frames=3), Calls()
    _count(ci, calls, 5, 6)
    assert calls.notices[("hazard_mismatch", "Alice")] == \
        "Rust Bucket: 5 hazard tokens seen, log 6: missing, or one on another?"
