"""A whole roll typed on the phone's page: one tap a die on its face, then Send.

Seen: entering four movement dice from the page took about 20 taps of the mirrored panel buttons (SELECT to
the face, OK, again for each die); the page now offers the faces of the roll awaited."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.web.web_helpers import Table, paired_client


@pytest.fixture
def road(tmp_path: Path):
    table = Table(tmp_path, "thunder_road")
    yield table
    table.close()


def test_the_roll_awaited_is_offered_with_its_faces(road: Table) -> None:
    client, _ = paired_client(road)
    page = client.get("/", headers={"accept": "text/html"}).text
    assert 'id="dice"' in page and " hidden" not in page.split('id="dice"')[1].split(">")[0]
    assert "Ana&#x27;s roll: 4 movement dice</p>" in page
    assert [f'data-place="{i}">{i}</button>' in page for i in range(1, 7)] == [True] * 6


def test_a_typed_roll_is_entered_and_told_on_the_rollers_screen(road: Table) -> None:
    client, csrf = paired_client(road)
    r = client.post("/dice", data={"csrf": csrf, "die": "movement", "label": "4 movement dice", "faces": "3 5 1 6"},
                    headers={"x-csrf-token": csrf})
    assert r.status_code == 204, r.text
    road.step()
    last = road.app.history[-1]
    assert last.source == "web" and last.outcome.accepted
    assert last.command.to_json() == {"type": "roll", "player": "Ana", "dice": [3, 5, 1, 6]}
    assert road.app.prompt().text == "round 1: Ben, Cy roll 4 movement dice"  # the next roller's turn
    told = [n for n in road.app.notices if n.text == "phone: 3 5 1 6"]
    assert told and told[0].player == "Ana"  # the roller's screen shows what the phone sent


def test_a_phone_roll_over_dice_entered_with_the_buttons_says_it_replaced_them(road: Table) -> None:
    """A walkthrough: two dice kept on the panel, then the roll tapped on the phone and sent: the phone's roll was
    recorded and the panel's dice dropped without a word.  The roller's screen says what it replaced."""
    from device.buttons import PressKind

    for _ in range(3):  # the roll opens, then two dice are kept (each the first face)
        road.buttons.press("ok", PressKind.SHORT)
        road.step()
    assert road.app.entry is not None and len(road.app.entry.entered) == 2
    client, csrf = paired_client(road)
    r = client.post("/dice", data={"csrf": csrf, "die": "movement", "label": "4 movement dice", "player": "Ana",
                                   "faces": "3 5 1 6"}, headers={"x-csrf-token": csrf})
    assert r.status_code == 204, r.text
    road.step()
    assert road.app.history[-1].command.to_json() == {"type": "roll", "player": "Ana", "dice": [3, 5, 1, 6]}
    told = [(n.text, n.player) for n in road.app.notices if n.kind == "dice"]
    assert told == [("phone: 3 5 1 6 (replaced 1 1, entered with the buttons)", "Ana")], told


def test_each_die_tapped_is_shown_on_the_rollers_screen_before_send(road: Table) -> None:
    """The brief: every die being entered is visible on the player's OLED.  The pad's taps were the phone's
    alone until Send; each tap (and each Take back) now goes to the roller's screen, nothing is entered."""
    client, csrf = paired_client(road)
    before, history = road.screens.images["Ana"].tobytes(), len(road.app.history)
    for faces, told in (("3", "3 (1 of 4) typed on the phone"), ("3 5", "3 5 (2 of 4) typed on the phone"),
                        ("3", "3 (1 of 4) typed on the phone"), ("", None)):
        r = client.post("/dice", data={"csrf": csrf, "die": "movement", "label": "4 movement dice", "player": "Ana",
                                       "faces": faces, "draft": "1"}, headers={"x-csrf-token": csrf})
        assert r.status_code == 204, r.text
        road.step()
        # an empty pad (the last die taken back, the page loaded anew) says nothing is being typed
        assert [(n.text, n.player) for n in road.app.notices if n.kind == "typing"] == ([(told, "Ana")] if told else [])
        if told:
            assert road.screens.images["Ana"].tobytes() != before, "the roller's screen does not show the taps"
    assert len(road.app.history) == history  # a draft enters nothing
    r = client.post("/dice", data={"csrf": csrf, "die": "movement", "label": "4 movement dice", "player": "Ana",
                                   "faces": "3 5 1 6 2", "draft": "1"}, headers={"x-csrf-token": csrf})
    assert r.status_code == 400 and "5 dice typed" in r.text  # more than the roll takes is refused, draft or not


def test_a_draft_for_a_roll_gone_by_is_not_shown(road: Table) -> None:
    from device.web.hub import dice_offer, type_dice

    anas = dice_offer(road.app)
    type_dice(road.app, anas, [3, 3, 3, 3], road.now)  # Ana's roll entered: Ben's is awaited now
    type_dice(road.app, anas, [6], road.now, draft=True)  # a tap of Ana's arriving late
    assert [n.text for n in road.app.notices if n.kind in ("dice", "typing")] == ["phone: 3 3 3 3"]


@pytest.mark.parametrize("faces, words", [("3 5 1", "3 dice typed; this roll, 4 movement dice, takes exactly 4"),
                                          ("3 5 1 7", "'7' is no face of the 4 movement dice: give 1 to 6"),
                                          ("three", "'three' is no face"),
                                          # a digit a phone's keyboard gives that is not 0-9 (int() of it failed,
                                          # and Python's words reached the page: an audit)
                                          ("\u00b3 1 2 3", "'\u00b3' is no face of the 4 movement dice: give 1 to 6"),
                                          ("9" * 5000, "'999999999999…' is no face"),
                                          ("1 " * 5000, "5000 dice typed")])
def test_a_roll_the_rules_cannot_take_is_refused_with_why(road: Table, faces: str, words: str) -> None:
    client, csrf = paired_client(road)
    before = len(road.app.history)
    r = client.post("/dice", data={"csrf": csrf, "die": "movement", "label": "4 movement dice", "faces": faces},
                    headers={"x-csrf-token": csrf})
    assert r.status_code == 400 and words in r.text
    road.step()
    assert len(road.app.history) == before  # nothing sent to the rules


def test_a_roll_for_a_step_gone_by_is_not_entered(road: Table) -> None:
    client, csrf = paired_client(road)
    r = client.post("/dice", data={"csrf": csrf, "die": "skid", "label": "skid dice", "faces": "1"},
                    headers={"x-csrf-token": csrf})
    assert r.status_code == 409 and "Ana's roll: 4 movement dice now" in r.text
    # Ana's roll sent after the step moved on to Ben's (a slow network): not entered as Ben's
    r = client.post("/dice", data={"csrf": csrf, "die": "movement", "label": "4 movement dice", "player": "Ana",
                                   "faces": "1 1 1 1"}, headers={"x-csrf-token": csrf})
    assert r.status_code == 204
    road.step()
    r = client.post("/dice", data={"csrf": csrf, "die": "movement", "label": "4 movement dice", "player": "Ana",
                                   "faces": "2 2 2 2"}, headers={"x-csrf-token": csrf})
    assert r.status_code == 409 and "Ben's roll" in r.text


def test_a_roll_queued_for_a_step_that_moved_on_is_not_entered(road: Table) -> None:
    from device.web.hub import dice_offer, type_dice

    anas = dice_offer(road.app)
    type_dice(road.app, anas, [3, 3, 3, 3], road.now)  # Ana's roll entered: Ben's is awaited now
    before = len(road.app.history)
    type_dice(road.app, anas, [6, 6, 6, 6], road.now)  # a second copy of Ana's, arriving late
    assert len(road.app.history) == before
    assert road.app.notices[-1].text == "phone's roll not taken: the step moved on"


def test_no_dice_box_while_no_roll_is_awaited(tmp_path: Path) -> None:
    table = Table(tmp_path, "gaslands")
    try:
        client, csrf = paired_client(table)
        page = client.get("/", headers={"accept": "text/html"}).text
        form = page.split('id="dice"')[1].split(">")[0]
        assert 'data-count="0"' in form and form.endswith(" hidden")
        r = client.post("/dice", data={"csrf": csrf, "faces": "1"}, headers={"x-csrf-token": csrf})
        assert r.status_code == 409 and r.text == "no dice are awaited now"
    finally:
        table.close()


def test_skid_dice_are_offered_each_face_once(tmp_path: Path) -> None:
    """A skid die has SHIFT on three faces: the pad offers it once, as the buttons do."""
    from games.core import Command

    table = Table(tmp_path, "gaslands")
    try:
        for command in (Command("choose_template", {"template": "short_straight"}), Command("confirm")):
            assert table.app.apply(command).accepted
            table.step()
        offer = table.web.hub.snapshot.dice
        assert offer is not None and offer.names == ("SHIFT", "HAZARD", "SLIDE", "SPIN")
        assert offer.title() == "Alice's roll: skid dice (up to 4)"
        client, csrf = paired_client(table)
        # the box's example is one the roll takes ("e.g. 3 5 1" was refused, "'5' is no face of the skid dice": a
        # maker's audit)
        page = client.get("/", headers={"accept": "text/html"}).text
        assert "(1 SHIFT, 2 HAZARD, 3 SLIDE, 4 SPIN), e.g. 3 1:" in page
        r = client.post("/dice", data={"csrf": csrf, "die": "skid", "label": offer.label, "player": "Alice",
                                       "faces": "4 2"}, headers={"x-csrf-token": csrf})
        assert r.status_code == 204
        table.step()
        assert table.app.history[-1].command.to_json()["faces"] == ["SPIN", "HAZARD"]
        assert table.app.history[-1].outcome.accepted
    finally:
        table.close()


def test_a_second_phone_cannot_type_over_a_roll_another_phone_is_entering(road: Table) -> None:
    """Two phones typed one roll: the roller's screen showed the second phone's taps, Send on the other
    entered its own, and neither phone was told.  The phone that tapped first holds the roll until it sends
    or takes its dice back."""
    from starlette.testclient import TestClient

    from device.web.server import create_app
    from tests.web.web_helpers import pair_token

    server = create_app(road.web.ctx)  # one page, two phones

    def phone() -> tuple[TestClient, str]:
        client = TestClient(server)
        page = client.get("/pair", headers={"accept": "text/html"})
        client.post("/pair", data={"csrf": pair_token(page.text), "code": road.web.code}, follow_redirects=False)
        return client, pair_token(client.get("/", headers={"accept": "text/html"}).text)

    first, csrf1 = phone()
    second, csrf2 = phone()

    def post(client, csrf, faces, draft=True):
        data = {"csrf": csrf, "die": "movement", "label": "4 movement dice", "player": "Ana", "faces": faces}
        return client.post("/dice", data={**data, **({"draft": "1"} if draft else {})}, headers={"x-csrf-token": csrf})

    assert post(first, csrf1, "3 5").status_code == 204
    refused = post(second, csrf2, "6")
    assert refused.status_code == 409 and "another phone is entering this roll (2 dice tapped there)" in refused.text
    assert post(second, csrf2, "6 6 6 6", draft=False).status_code == 409  # nor Send there
    road.step()
    assert [n.text for n in road.app.notices if n.kind == "typing"] == ["3 5 (2 of 4) typed on the phone"]
    assert post(first, csrf1, "3 5 1 6", draft=False).status_code == 204  # the first phone sends its roll
    road.step()
    assert road.app.history[-1].command.to_json() == {"type": "roll", "player": "Ana", "dice": [3, 5, 1, 6]}
    # Ben's roll now: nobody holds it
    data = {"csrf": csrf2, "die": "movement", "label": "4 movement dice", "player": "Ben", "faces": "2", "draft": "1"}
    assert second.post("/dice", data=data, headers={"x-csrf-token": csrf2}).status_code == 204
    # a phone that takes all its dice back lets go of the roll
    assert second.post("/dice", data={**data, "faces": ""}, headers={"x-csrf-token": csrf2}).status_code == 204
    data1 = {**data, "csrf": csrf1, "faces": "4"}
    assert first.post("/dice", data=data1, headers={"x-csrf-token": csrf1}).status_code == 204


def test_the_dice_box_names_who_rolls_and_how_many_as_their_screen_does(tmp_path: Path) -> None:
    """A phone audit: Alice attacked The Brick and the page's dice box asked "Alice's roll: 1 hit: evade dice", no
    count (the "1" of "1 hit" was taken for it) and not the roller: Bob's screen read "The Brick: 1 hit: roll 1
    evade die"."""
    from device.web.hub import DiceOffer, dice_offer
    from games.core.table_input import DiceRequest

    table = Table(tmp_path, "gaslands")
    try:
        request = DiceRequest(die="d6", count=1, exact=False, label="1 hit: evade dice", build=lambda faces: None,
                              tell=(("Bob", "The Brick: 1 hit: roll 1 evade die"),))
        table.app.awaited_roll = lambda: request  # type: ignore[method-assign]
        offer = dice_offer(table.app)
        assert offer is not None and offer.player == "Bob"
        assert offer.title() == "Bob's roll: The Brick: 1 hit: roll 1 evade die"
    finally:
        table.close()
    plain = DiceOffer("d6", "1 hit: evade dice", 1, False, ("1",), "Bob")
    assert plain.title() == "Bob's roll: 1 hit: evade dice, at most 1"  # the "1" of "1 hit" is no count
    assert DiceOffer("skid", "skid dice (up to 4)", 4, False, ("SHIFT",), "Al").title() == "Al's roll: skid dice (up to 4)"
    assert DiceOffer("d6", "smash dice on Rust Bucket (2 ± weight)", 2, False, ("1",), "Bob").title() == \
        "Bob's roll: smash dice on Rust Bucket (2 ± weight)"


def test_fewer_evade_dice_than_the_gear_are_sent_from_the_phone_only_when_asked_for(tmp_path: Path) -> None:
    """"the target rolls evade dice equal to its current gear": the buttons ask once before sending fewer ("NEXT
    again: send 2 of 3 evade dice"); a review of the phone page: two taps and Send entered 2 of 3 with no question.
    The page's script asks and then says on_purpose=1; a page without script ticks 'Another count on purpose'."""
    from device.web.hub import dice_offer
    from games.core import Command
    from games.core.table_input import DiceRequest

    table = Table(tmp_path, "gaslands")
    try:
        table.app.open_entry(DiceRequest("d6", 3, "2 hits: evade dice",
                                         lambda ev: Command("attack", {"target": "brick", "dice": [4, 5],
                                                                       "evade": list(ev)}),
                                         exact=False, usual=3))
        table.step()
        offer = dice_offer(table.app)
        assert offer is not None and offer.to_json()["usual"] == 3 and offer.to_json()["roll"] == "evade dice"
        client, csrf = paired_client(table)
        page = client.get("/", headers={"accept": "text/html"}).text
        assert 'data-usual="3"' in page and 'data-roll="evade dice"' in page and "Another count on purpose" in page
        data = {"csrf": csrf, "die": offer.die, "label": offer.label, "player": offer.player or "", "faces": "4 6"}

        def sent() -> list[list[int]]:
            table.step()
            return [list(a.command.args["evade"]) for a in table.app.history if a.command.type == "attack"]

        refused = client.post("/dice", data=data, headers={"x-csrf-token": csrf})
        assert refused.status_code == 409 and sent() == []
        assert refused.text.startswith("2 of 3 evade dice typed: the usual roll is all 3: tap the missing dice")
        assert client.post("/dice", data={**data, "draft": "1"}, headers={"x-csrf-token": csrf}).status_code == 204
        assert sent() == []  # taps shown as they come are not a roll
        taken = client.post("/dice", data={**data, "on_purpose": "1"}, headers={"x-csrf-token": csrf})
        assert taken.status_code == 204 and sent() == [[4, 6]]
    finally:
        table.close()


def test_more_smash_dice_than_the_crash_gives_are_sent_from_the_phone_only_when_asked_for(tmp_path: Path) -> None:
    """"T-bone: ... smash attack dice equal to its current gear": room is left for a ram's or a perk's dice, and
    a walkthrough found a fourth of a T-bone's 3 taken without a word; the phone asks as the buttons do."""
    from device.web.hub import dice_offer
    from games.core import Command
    from games.core.table_input import DiceRequest

    table = Table(tmp_path, "gaslands")
    try:
        table.app.open_entry(DiceRequest("d6", 12, "smash dice on The Brick (3)",
                                         lambda d: Command("smash", {"attacker": "rust", "target": "brick",
                                                                     "kind": "t_bone", "dice": list(d), "evade": []}),
                                         exact=False, usual=3))
        table.step()
        offer = dice_offer(table.app)
        assert offer is not None and offer.title() == "Alice's roll: smash dice on The Brick (3)"  # not "at most 12"
        client, csrf = paired_client(table)
        data = {"csrf": csrf, "die": offer.die, "label": offer.label, "player": offer.player or "",
                "faces": "1 2 3 1"}
        refused = client.post("/dice", data=data, headers={"x-csrf-token": csrf})
        assert refused.status_code == 409 and table.app.entry is not None
        assert refused.text.startswith("4 smash dice on The Brick typed: the usual roll is 3: tap the missing dice")
        table.step()
        assert not [a for a in table.app.history if a.command.type == "smash"]
        assert client.post("/dice", data={**data, "faces": "1 2 3"}, headers={"x-csrf-token": csrf}).status_code == 204
        table.step()
        assert [a.command.args["dice"] for a in table.app.history if a.command.type == "smash"] == [[1, 2, 3]]
    finally:
        table.close()
