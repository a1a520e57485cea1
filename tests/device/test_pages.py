"""The pages that cover a player's dashboard, for every game, as the loop draws them: golden images.

Each game is played from its ``EXAMPLE_SETUP`` through :class:`device.app.App` with scripted buttons and a
recording display; what the chooser's screen shows is compared pixel for pixel with a PNG under
``tests/dashboards/golden/pages/`` (``PITBOARD_REGOLD=1`` rewrites them: look at them before committing):

* ``<game>_menu`` — the menu open at the game's first step, ``<game>_menu_list`` — a list opened in it;
* ``<game>_dice`` — a dice entry in progress (the games with a roll);
* ``<game>_refusal_1`` / ``_2`` — a refusal too long for one page, its first two pages;
* ``<game>_legend_<k>`` — each page of the legend a long NEXT opens.

And, with no image: no one-line text on these pages is cut with "…", and the legend uses only characters
the screen font has.
"""

from __future__ import annotations

import importlib.util
import sys
import tomllib
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from PIL import Image

from device.app import REFUSAL_PAGE_S, App, open_match
from device.buttons import PressKind, ScriptedButtons
from device.dashboards import pages
from device.store import Store, StoreError
from games import game_package
from games.core import Command

GAMES = ("gaslands", "thunder_road", "space_race", "grand_tour")
GOLDEN = Path(__file__).resolve().parents[1] / "dashboards" / "golden" / "pages"


def _golden_images() -> ModuleType:
    """``tests/dashboards/golden_images.py`` (one rule for every golden image), wherever pytest started."""
    known = sys.modules.get("golden_images")
    if known is not None:
        return known
    path = Path(__file__).resolve().parents[1] / "dashboards" / "golden_images.py"
    spec = importlib.util.spec_from_file_location("golden_images", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["golden_images"] = module
    spec.loader.exec_module(module)
    return module


check_golden: Callable[[Image.Image, Path, Path], None] = _golden_images().check_golden


class Screens:
    """A recording display: the last image each player's screen shows."""

    def __init__(self) -> None:
        self.images: dict[str, Image.Image] = {}

    def show(self, player: str, image: Image.Image) -> bool:
        self.images[player] = image
        return True


class Table:
    """A game from its example setup, in the loop, with the real dashboards and a clock the test moves.

    Times are chosen so that alerts are drawn in their lit phase (the blink is on in even half-seconds)."""

    def __init__(self, game: str, tmp_path: Path, setup: dict[str, Any] | None = None) -> None:
        self.game = game
        self.module = game_package(game)
        self.store = Store(tmp_path / f"{game}.sqlite")
        options = setup if setup is not None else tomllib.loads(self.module.EXAMPLE_SETUP)
        _, self.match, _ = open_match(self.store, self.module, options)
        self.buttons = ScriptedButtons()
        self.screens = Screens()
        self.t = 0.1
        self.app = App(self.module, self.match, buttons=self.buttons, displays=self.screens, clock=lambda: self.t)
        self.app.step(self.t)

    def press(self, *keys: str) -> None:
        """One press per loop iteration (``select_long``: a long SELECT, as :func:`device.menus.plan` names it);
        the clock does not move, so each screen is drawn as at the first moment."""
        for key in keys:
            long = key.endswith("_long")
            self.buttons.press(key.removesuffix("_long"), PressKind.LONG if long else PressKind.SHORT)
            self.app.step(self.t)

    def go(self, *path: str) -> None:
        """Walk to ``path`` in the menu and take it (a roll: its dice entry opens)."""
        keys = self.app.plan(path)
        assert keys is not None, f"{path} is not in the {self.game} menu"
        self.press(*keys)

    def choose(self, *path: str) -> None:
        """:meth:`go` to a command, which must be accepted."""
        before = len(self.app.history)
        self.go(*path)
        assert [a.outcome.accepted for a in self.app.history[before:]] == [True], self.app.history[before:]

    def later(self, seconds: float) -> None:
        self.t += seconds
        self.app.step(self.t)

    def seat(self) -> str:
        """The chooser's screen (the first player's when anybody may choose)."""
        chooser = self.app.chooser()
        return chooser if chooser is not None else str(self.app.turn().views[0].player)

    def image(self, player: str | None = None) -> Image.Image:
        return self.screens.images[player or self.seat()]

    def dashboard(self, player: str) -> Image.Image:
        view = next(v for v in self.app.screen_views() if v.player == player)
        return self.app.render(self.game, view, True)

    def close(self) -> None:
        self.store.close()


def _same(a: Image.Image, b: Image.Image) -> bool:
    return a.size == b.size and a.convert("1").tobytes() == b.convert("1").tobytes()


@pytest.fixture()
def table(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    t = Table(request.param, tmp_path)
    yield t
    t.close()


def _menu_required(game: str) -> None:
    if not hasattr(game_package(game).GAME, "menu"):
        pytest.skip(f"{game} declares no GAME.menu(state) yet (its menus are being written)")


# -- the menu ----------------------------------------------------------------------------------------------

#: The presses that open a list in each game's first menu (Grand Tour's first menu is flat: a rider named,
#: the squares list that follows is shown instead).
OPEN_A_LIST: dict[str, tuple[str, ...]] = {
    "gaslands": ("ok",),  # 1.1 Template › Straights
    "thunder_road": ("select_long", "ok", "ok"),  # Roll › Damage… › Your vehicles
    "space_race": ("select", "ok"),  # Between turns › Event: advance
    "grand_tour": ("ok",),  # red Rouleur crossed: Squares past the line
}


@pytest.mark.parametrize("table", GAMES, indirect=True)
def test_the_menu_is_on_the_choosers_screen(table: Table, tmp_path: Path) -> None:
    _menu_required(table.game)
    seat = table.seat()
    page = table.app.page_for(seat, next(v for v in table.app.screen_views() if v.player == seat), table.t, True)
    assert isinstance(page, pages.MenuPage) and page.title == table.app.menu().title
    assert not _same(table.image(), table.dashboard(seat))  # the menu covers the dashboard
    for player, image in table.screens.images.items():
        if table.app.chooser() is not None and player != table.app.chooser():
            assert _same(image, table.dashboard(player)), f"{player} is not choosing: the dashboard stays"
    check_golden(table.image(), GOLDEN / f"{table.game}_menu.png", tmp_path)


@pytest.mark.parametrize("table", GAMES, indirect=True)
def test_a_list_opened_in_the_menu(table: Table, tmp_path: Path) -> None:
    _menu_required(table.game)
    table.press(*OPEN_A_LIST[table.game])
    assert table.app.entry is None and table.app.refusal is None
    check_golden(table.image(), GOLDEN / f"{table.game}_menu_list.png", tmp_path)


# -- the dice entry ----------------------------------------------------------------------------------------


def _gaslands_dice(t: Table) -> None:
    t.choose("Straights", "Short")
    t.choose("Template placed")
    t.go("Roll skid dice")
    t.press("ok", "select", "ok", "select")  # SHIFT and HAZARD kept, SLIDE shown


def _thunder_road_dice(t: Table) -> None:
    t.go("Ana's dice")
    t.press("select", "select", "ok", "select", "select", "ok", "select")  # 3 and 5 kept, 6 shown


def _space_race_dice(t: Table) -> None:
    t.choose("Begin turn 1")
    t.choose("USSR attempt · box 1", "2 Ops")  # the d6 is awaited
    t.go("Roll the die")
    t.press("select", "select", "select")  # face 4 shown


DICE: dict[str, Callable[[Table], None]] = {
    "gaslands": _gaslands_dice,
    "thunder_road": _thunder_road_dice,
    "space_race": _space_race_dice,
}


@pytest.mark.parametrize("table", tuple(DICE), indirect=True)
def test_a_dice_entry_in_progress(table: Table, tmp_path: Path) -> None:
    _menu_required(table.game)
    DICE[table.game](table)
    assert table.app.entry is not None and table.app.menu().dice is not None
    check_golden(table.image(), GOLDEN / f"{table.game}_dice.png", tmp_path)


# -- a refusal too long for one page -------------------------------------------------------------------------


def _gaslands_refusal(t: Table) -> None:
    """Rust Bucket shifts up to gear 5 and, next activation, the camera sees a Turn: not permitted in gear 5,
    and Bob picks instead (touch-move)."""
    t.choose("Straights", "Short")
    t.choose("Template placed")
    t.app.type_faces(["SHIFT"] * 4)
    for _ in range(4):
        t.choose("Gear up · +1 hazard")
    for _ in range(12):
        p = t.app.prompt()
        if p.awaits == "template" and p.vehicle == "rust":
            break
        if t.app.menu().dice is not None:
            t.app.type_faces([])
        elif p.awaits == "template":
            t.choose("Straights", "Short")
        else:
            assert t.app.menu().advance, f"no usual way on at {p.text}"
            t.press("next")
    t.app.apply(Command("choose_template", {"template": "turn", "hand": "left"}), source="camera", now=t.t)


def _thunder_road_refusal(t: Table) -> None:
    """Ana coasts a car while she still has cars to move."""
    for _player in ("Ana", "Ben", "Cy"):
        t.app.type_faces([1, 3, 4, 6])
    t.app.apply(Command("coast", {"vehicle": "Ana/small", "die": 1}), now=t.t)


def _space_race_refusal(t: Table) -> None:
    """The card is played, and the game log cannot be written (the disk is full): NOT RECORDED."""

    def full(decision: int, events: Any) -> Any:
        raise StoreError("could not write to the game log /home/pi/.local/share/pitboard/games.sqlite: database or "
                         "disk is full; nothing of this step was recorded")

    t.match._sink = full
    t.press("ok")  # Begin turn 1


def _grand_tour_refusal(t: Table) -> None:
    """The round is ended before anybody crossed the line."""
    t.app.apply(Command("end_round", {"pack": True}), now=t.t)


REFUSAL: dict[str, Callable[[Table], None]] = {
    "gaslands": _gaslands_refusal,
    "thunder_road": _thunder_road_refusal,
    "space_race": _space_race_refusal,
    "grand_tour": _grand_tour_refusal,
}


@pytest.mark.parametrize("table", GAMES, indirect=True)
def test_a_long_refusal_is_paged(table: Table, tmp_path: Path) -> None:
    _menu_required(table.game)
    REFUSAL[table.game](table)
    table.later(0.0)
    refusal = table.app.refusal
    assert refusal is not None and len(refusal.pages) >= 2, table.app.history[-1]
    sender = refusal.player or table.seat()
    check_golden(table.image(sender), GOLDEN / f"{table.game}_refusal_1.png", tmp_path)
    table.later(REFUSAL_PAGE_S + 0.5)  # the next page, drawn while alerts are lit
    assert table.app.refusal is refusal
    check_golden(table.image(sender), GOLDEN / f"{table.game}_refusal_2.png", tmp_path)


# -- the legend --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("table", GAMES, indirect=True)
def test_each_legend_page(table: Table, tmp_path: Path) -> None:
    legend = table.app.legend_pages()
    assert len(legend) >= 2  # the game's symbols, then the buttons
    table.press("next_long")
    shown = []
    for _ in legend:
        assert table.app.legend is not None
        shown.append(table.image())
        table.press("select")
    assert table.app.legend is None  # past the last page: closed
    for k, image in enumerate(shown, start=1):
        assert _same(image, pages.render_text(legend[k - 1]))
        check_golden(image, GOLDEN / f"{table.game}_legend_{k}.png", tmp_path)


# -- nothing drawn is cut, no symbol is missing from the font ---------------------------------------------------


@pytest.fixture()
def cut_text(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The one-line texts a page had to cut with "…" (they did not fit at the smallest size offered)."""
    cut: list[str] = []
    fit = pages.fit_text

    def spy(draw: Any, box: tuple[int, int, int, int], text: str, *, sizes: tuple[int, ...] = (12, 11, 10, 9),
            **kw: Any) -> int:
        if pages.text_width(text, sizes[-1]) > box[2] - box[0]:
            cut.append(text)
        return fit(draw, box, text, sizes=sizes, **kw)

    monkeypatch.setattr(pages, "fit_text", spy)
    return cut


def test_a_pages_text_is_never_drawn_at_8_px(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A game-night audit: at 8 px the bundled font draws t, f and l alike: Gaslands' footer "place: Turn, left
    · hazardous" read "Turn, lell", "place: Short Straight · trivial" read "placa: Shorl Slraighl · lrivial".  A
    text too long at 9 px is shown in pieces (the footer) or cut with its tail turning (a menu row)."""
    drawn: list[tuple[str, int]] = []
    fit = pages.fit_text

    def spy(draw: Any, box: tuple[int, int, int, int], text: str, *, sizes: tuple[int, ...] = (12, 11, 10, 9),
            **kw: Any) -> int:
        size = fit(draw, box, text, sizes=sizes, **kw)
        drawn.append((text, size))
        return size

    monkeypatch.setattr(pages, "fit_text", spy)
    page = pages.MenuPage(title="1.2 Template ›", entries=(("Short Straight · trivial", "leaf"),), cursor=0,
                          footer="place: Short Straight · trivial")
    pages.render_menu(page, blink_on=True)
    footer = pages.footer_pieces("place: Turn, left · hazardous")
    assert len(footer) == 2 and pages.unpieced(footer) == "place: Turn, left · hazardous"
    t = Table("gaslands", tmp_path)
    try:
        t.press(*OPEN_A_LIST["gaslands"])
    finally:
        t.close()
    assert drawn and not [(text, size) for text, size in drawn if size < 9], drawn


def test_a_titles_count_is_drawn_in_the_pixel_font() -> None:
    """The audit again: a dice entry's "0/4" read "Q/4" (the bundled font's 0 runs into its slash), the
    legend's "10/11" "1Q/11".  A count beside a title is drawn in the 5×7 pixel font, whose 0 stands apart."""
    import numpy as np
    from PIL import Image, ImageDraw

    from device.dashboards.common import pixel_text, pixel_text_width

    page = pages.DicePage(title="Roll skid dice", label="skid dice (up to 4)", entered=(), count=4, exact=False,
                          current="SHIFT", ready=False)
    drawn = np.asarray(pages.render_dice(page), dtype=bool)
    want = Image.new("1", (128, 64), 1)
    w = pixel_text_width("0/4")
    pixel_text(ImageDraw.Draw(want), (126 - w + 1, 2), "0/4", fill=0)
    corner = (slice(0, 11), slice(126 - w - 2, 127))
    assert (drawn[corner] == np.asarray(want, dtype=bool)[corner]).all()


@pytest.mark.parametrize("game", GAMES)
def test_no_text_on_the_pages_is_cut(game: str, tmp_path: Path, cut_text: list[str]) -> None:
    t = Table(game, tmp_path)
    try:
        t.press(*OPEN_A_LIST[game])
        t.press("next_long", *["select"] * len(t.app.legend_pages()))
    finally:
        t.close()
    if game in DICE:
        t = Table(game, tmp_path / "dice")
        try:
            DICE[game](t)
        finally:
            t.close()
    assert cut_text == [], sorted(set(cut_text))


@pytest.mark.parametrize("game", GAMES)
def test_no_legend_entry_runs_over_a_page(game: str) -> None:
    """Gaslands' "Lit banner: ... LOST CONTROL," ended a page and "WRECKED" stood alone on the next; the Space
    Race's abilities left "rounds" alone: every entry fits one page, whole."""
    from device.dashboards.legends import legend

    long = [symbol for symbol, meaning in legend(game)
            if len(pages.wrap(f"{symbol}: {meaning}", size=pages.LEGEND_SIZE)) > pages.LEGEND_LINES]
    assert long == []


@pytest.mark.parametrize("game", GAMES)
def test_the_legend_uses_only_characters_the_screen_font_has(game: str) -> None:
    from PIL import ImageDraw

    from device.dashboards.common import font
    from device.dashboards.legends import legend

    def ink(text: str) -> bytes:
        image = Image.new("1", (40, 20), 0)
        ImageDraw.Draw(image).text((2, 2), text, fill=1, font=font(pages.BODY_SIZE))
        return image.tobytes()

    missing_glyph = ink("\uffff")
    text = "".join(symbol + meaning for symbol, meaning in legend(game))
    missing = sorted({c for c in text if not c.isspace() and ink(c) == missing_glyph})
    assert missing == []


def test_the_notice_of_next_at_a_decision_fits_the_menu_page(tmp_path: Path, cut_text: list[str]) -> None:
    t = Table("gaslands", tmp_path)  # 1.1: which template is a decision, NEXT does not guess
    try:
        assert t.app.menu().advance == ()
        t.press("next")
        assert t.app.history == [] and t.app.notices
    finally:
        t.close()
    assert cut_text == [], sorted(set(cut_text))


def test_a_highlighted_label_too_long_for_its_line_shows_its_end_in_turn() -> None:
    """Other players' vehicles in a 5-player Gaslands game ("Charlotte's Performance Car") were cut to
    "Charlotte's Performance …" on the Attack and Hit lists, so which of her cars it was could not be
    read.  The highlighted line shows the label's start, then its end ("…lotte's Performance Car")."""
    from device.dashboards import pages as p

    long = (("Charlotte's Performance Car", "dice"), ("Rust Bucket", "dice"))
    assert p.label_is_cut(*long[0]) and not p.label_is_cut(*long[1])
    start = p.render_menu(p.MenuPage("Attack…", long, 0, "Bob · gear 2", "", 0))
    end = p.render_menu(p.MenuPage("Attack…", long, 0, "Bob · gear 2", "", 1))
    assert start.tobytes() != end.tobytes()
    assert p._tail("Charlotte's Performance Car", 9, 122).endswith("Performance Car")
    short = (("Rust Bucket", "dice"), long[0])
    assert (p.render_menu(p.MenuPage("Attack…", short, 0, "", "", 0)).tobytes()
            == p.render_menu(p.MenuPage("Attack…", short, 0, "", "", 1)).tobytes())


def test_a_title_too_long_for_its_bar_shows_its_end_in_turn(tmp_path: Path) -> None:
    """"If they pick a template that is not permitted, the player on their left chooses and places any permitted
    template for that vehicle."  The picker's menu is titled "Pick for <vehicle>"; for "Charlotte's Performance
    Car" the bar showed "Pick for Charlotte's Perf…", and which car the pick was for could be read only in the
    footer.  The title shows its start, then its end, as a highlighted line does; a short title stands still."""
    options = tomllib.loads(game_package("gaslands").EXAMPLE_SETUP)
    options["players"][0]["vehicles"][0]["name"] = "Charlotte's Performance Car"
    # an owner's chart bars the Hairpin in gear 1 (the shipped chart leaves gear 1 unknown)
    options["chart"] = {"hairpin": ["not_permitted", "unknown", "unknown", "unknown", "not_permitted", "unknown"]}
    t = Table("gaslands", tmp_path, options)
    try:
        if t.match.prompt().awaits == "vehicle":
            t.press("ok")
        t.go("Not permitted…", "Hairpin")
        assert t.match.state.activation.touch_move and t.seat() == "Bob"
        bars, turns = [], []
        for _ in range(4):
            t.later(pages.LABEL_TURN_S)
            page = t.app.page_for("Bob", None, t.t, True)
            assert isinstance(page, pages.MenuPage) and page.title == "Pick for Charlotte's Performance Car"
            turns.append(page.turn)
            bars.append(t.image("Bob").convert("1").crop((0, 0, 128, 12)).tobytes())
            assert bars[-1] == pages.render_menu(page).convert("1").crop((0, 0, 128, 12)).tobytes()
    finally:
        t.close()
    assert bars[0] != bars[1] and bars[0] == bars[2] and bars[1] == bars[3]  # start, end, start, end
    assert sorted(turns) == [0, 0, 1, 1]

    def bar(title: str, turn: int) -> bytes:
        entries = (("Long Straight", "leaf"), ("Short Straight", "leaf"))
        return pages.render_menu(pages.MenuPage(title, entries, 0, turn=turn)).crop((0, 0, 128, 12)).tobytes()

    long = "Pick for Charlotte's Performance Car"
    pieces = pages.title_pieces(long, "1/2")
    assert len(pieces) == 2 and pages.unpieced(pieces) == long and bar(long, 0) != bar(long, 1)
    assert pages.title_pieces("Pick for Rust Bucket", "1/2") == ["Pick for Rust Bucket"]
    assert bar("Pick for Rust Bucket", 0) == bar("Pick for Rust Bucket", 1)
    # a title wider than two bars: its middle is shown too, every piece whole at the bar's smallest size
    longer = "Pick for Charlotte's Performance Car with the Twin Mortars"
    three = pages.title_pieces(longer, "1/2")
    assert len(three) >= 3 and pages.unpieced(three) == longer
    assert all(pages.text_width(p, pages.TITLE_SIZES[-1]) <= pages._title_right("1/2") - 1 for p in three)
    page = pages.MenuPage(longer, (("Long Straight", "leaf"), ("Short Straight", "leaf")), 0)
    assert pages.menu_page_turns(page) == len(three)
    assert len({bar(longer, k) for k in range(len(three))}) == len(three)
    dice = pages.DicePage(title=long, label="skid dice", entered=(), count=3, exact=False, current="SHIFT",
                          ready=False)
    assert pages.dice_page_turns(dice) == 2
    assert pages.render_dice(dice).tobytes() != pages.render_dice(replace(dice, turn=1)).tobytes()


def test_a_path_too_long_for_the_title_keeps_the_steps_number_not_8_px() -> None:
    """"1.1 Template › Straights" fitted the title bar only at 8 px, where the font's t reads as l
    ("1.1 Templale › Slraighls").  The step's number stands for its name instead, at a readable size."""
    from device.dashboards import pages as p

    assert p.fitting_path("1.1 Template", ("Straights",), "1/6") == "1.1 › Straights"
    assert p.fitting_path("1.1 Template", (), "1/8") == "1.1 Template"
    assert p.fitting_path("Attack…", ("Charlotte's Performance Car",), "1/3") == "Charlotte's Performance Car"
    # a list inside a list: the step's number stays, with the deepest list that fits beside it
    assert p.fitting_path("1.1 Touch-move pick", ("Table…", "End game"), "1/3") == "1.1 … End game"


def test_a_dice_line_too_long_for_the_screen_shows_every_die_in_turn() -> None:
    """A Bike's five skid dice read "SHIFT HAZARD SPIN SHIFT…" at 8 px: the fifth die could not be checked
    before NEXT sent the roll ("every die being entered must be visible"). The line now shows its pieces in
    turn, at a readable size, each marked "…" where it goes on."""
    from dataclasses import replace

    from device.dashboards import pages as p
    from device.dashboards.common import text_width

    five = p.DicePage("Eve · 1.3 Skid check", "5 skid dice", ("SHIFT", "HAZARD", "SPIN", "SHIFT", "SLIDE"), 5,
                      False, "SHIFT", True)
    pieces = p.dice_line_pieces(five)
    assert len(pieces) == 2 and pieces[0].endswith("…") and pieces[1].startswith("…")
    assert " ".join(x.strip("…") for x in pieces).split() == list(five.entered)
    assert all(text_width(x, p.BODY_SIZE) <= p.DICE_LINE_WIDTH for x in pieces)
    assert p.render_dice(five).tobytes() != p.render_dice(replace(five, turn=1)).tobytes()
    evade = p.DicePage("Bob · Attack", "3 hits: evade dice", ("1", "2"), 4, False, "6", True,
                       kept="attack dice 6 4 2")
    assert " ".join(x.strip("…") for x in p.dice_line_pieces(evade)).split() == "attack dice 6 4 2 · 1 2".split()
    # named (an audit: "attack dice … 6 4 · 6" read as one roll, the evade die one more attack die)
    named = replace(evade, name="evade dice")
    assert p.dice_line(named) == "attack dice 6 4 2 · evade dice 1 2"
    assert p.dice_line(replace(named, entered=())) == "attack dice 6 4 2"  # none yet: the title says "0/4"
    two = p.DicePage("Cy · 1.3 Skid check", "3 skid dice", ("SHIFT", "HAZARD"), 3, False, "SHIFT", False)
    assert p.dice_line_pieces(two) == ["SHIFT HAZARD"]


def test_a_long_dice_label_turns_in_pieces() -> None:
    """A smash attack's evade dice name their target ("3 hits on Dmitri's Ice Cream Truck: evade dice"): the
    label was cut at the screen's edge, and with it whose dice they are. It turns in pieces, as the dice line
    does, every piece whole and the two lines' pieces all shown in turn."""
    from dataclasses import replace

    from device.dashboards import pages as p
    from device.dashboards.common import text_width

    page = p.DicePage("Charlotte's Pe… 0/4", "3 hits on Dmitri's Ice Cream Truck: evade dice", (), 4, False, "1",
                      True, kept="smash dice on Dmitri's Ice Cream Truck 6 6 4")
    labels = p.label_pieces(page)
    assert len(labels) >= 2 and " ".join(x.strip("…") for x in labels).split() == page.label.split()
    assert all(text_width(x, p.BODY_SIZE) <= p.DICE_LINE_WIDTH for x in labels)
    turns = p.dice_page_turns(page)
    assert turns % len(labels) == 0 and turns % len(p.dice_line_pieces(page)) == 0
    drawn = {p.render_dice(replace(page, turn=k)).tobytes() for k in range(turns)}
    assert len(drawn) == turns  # every turn shows another pair of pieces
    short = p.DicePage("Bob · Attack", "3 hits: evade dice", ("1",), 4, False, "6", True)
    assert p.label_pieces(short) == ["3 hits: evade dice"] and p.dice_page_turns(short) == 1


def test_a_long_label_takes_the_dice_lines_row_before_any_die_is_entered() -> None:
    """A screens audit: a long label was read in one-line pieces ("3 hits on Dmitri's Ice…", "…Cream Truck:
    evade…", "…dice") while the dice line below said "no dice yet" (the title's 0/4 says it too): before the first
    die a label of two lines has both rows, whole; a longer one turns two lines at a time."""
    from dataclasses import replace

    from device.dashboards import pages as p

    page = p.DicePage("Dmitri · Attack", "3 hits on Dmitri's Ice Cream Truck: evade dice", (), 4, False, "1", False)
    assert p.label_lines(page) == ["3 hits on Dmitri's Ice", "Cream Truck: evade dice"]
    assert p.label_pieces(page) == ["3 hits on Dmitri's Ice\nCream Truck: evade dice"] and p.dice_page_turns(page) == 1
    assert p.render_dice(page).tobytes() != p.render_dice(replace(page, label="x")).tobytes()
    # once a die is entered, the dice line has its row again and the label turns in pieces
    one = replace(page, entered=("3",))
    assert p.label_lines(one) == [] and len(p.label_pieces(one)) > 1
    assert p.label_lines(replace(page, kept="attack dice 6 4")) == []  # an earlier roll of the entry is shown
    # three lines turn two at a time, as a scroll: four one-line pieces cut mid-word before ("…otte's Performance…")
    smash = replace(page, label="smash dice on Charlotte's Performance Car (2 ± weight)")
    assert p.label_lines(smash) == ["smash dice on", "Charlotte's Performance", "Car (2 ± weight)"]
    assert p.label_pieces(smash) == ["smash dice on\nCharlotte's Performance", "Charlotte's Performance\nCar (2 ± weight)"]
    assert p.dice_page_turns(smash) == 2
    first, second = (p.render_dice(replace(smash, turn=t)).tobytes() for t in (0, 1))
    assert first != second and p.render_dice(replace(smash, turn=2)).tobytes() == first
    # a word wider than the screen is cut where the line ends, and shown with its end
    wide = replace(page, label="smash dice on Bartholomew-Montgomery's Performance Car")
    assert p.label_pieces(wide)[1] == "Bartholomew-Montgomer\ny's Performance Car"


def _bike_skid_roll_entered(displays: Any = None, clock: Any = lambda: 0.0) -> Any:
    """An app at Eve's Sand Flea's skid roll with five dice entered (SHIFT HAZARD SPIN SHIFT SLIDE): a dice line too
    long for the screen."""
    from device.app import App
    from games import gaslands
    from games.core import Match

    setup = {"players": [{"name": "Eve", "vehicles": [{"type": "bike", "name": "Sand Flea"}]},
                         {"name": "Bob", "vehicles": [{"type": "car"}]}]}
    app = App(gaslands, Match.begin(gaslands.GAME, setup), buttons=ScriptedButtons(),
              displays=displays if displays is not None else Screens(), clock=clock)
    for command in (Command("choose_template", {"template": "gentle", "hand": "left"}), Command("place_template")):
        assert app.apply(command, now=0.0).accepted  # Eve's Sand Flea activates first (pole position)
    request = app.menu().dice
    assert request is not None and request.count == 5
    app.open_entry(request)
    entry = app.entry
    for face in ("SHIFT", "HAZARD", "SPIN", "SHIFT", "SLIDE"):
        while entry.request.name_of(entry.current) != face:
            entry.select()
        entry.keep()
    return app


def test_the_app_turns_a_long_dice_line() -> None:
    """Through the loop: a Bike's skid roll of five dice shows its first dice, then the rest, as time passes."""
    app = _bike_skid_roll_entered()
    view = next(v for v in app.turn().views if v.player == "Eve")
    shown = [app.page_for("Eve", view, now, True) for now in (0.0, pages.LABEL_TURN_S)]
    lines = [pages.dice_line_pieces(page)[page.turn] for page in shown]
    assert lines[0].startswith("SHIFT HAZARD") and lines[1].endswith("SHIFT SLIDE"), lines


def test_the_targets_owner_is_told_to_roll_the_evade_dice() -> None:
    """Gaslands: "the target rolls evade dice equal to its current gear". The attacker enters them, and Bob,
    whose bus it is, saw only "Alice · 2 attack" on his screen: he is now told on his own screen."""
    from device.app import App
    from games import gaslands
    from games.core import Match

    setup = {"players": [{"name": "Alice", "vehicles": [{"type": "car", "name": "Rust Bucket"}]},
                         {"name": "Bob", "vehicles": [{"type": "bus", "name": "Big Yellow Schoolbus"}]}]}
    match = Match.begin(gaslands.GAME, setup)
    app = App(gaslands, match, buttons=ScriptedButtons(), displays=Screens(), clock=lambda: 0.0)
    for command in (Command("choose_template", {"template": "gentle", "hand": "left"}), Command("place_template"),
                    Command("skid_roll", {"faces": []}), Command("confirm")):
        assert app.apply(command, now=0.0).accepted, command
    assert app.prompt().step.startswith("2")
    attack = next(c for c in app.menu().choices if c.label == "Attack…")
    bus = next(c for c in attack.children if "Big Yellow" in c.label)
    app.open_entry(bus.dice)
    app.entry.entered[:] = [6, 4, 2]
    app.finish_entry(0.0)  # the evade dice's entry opens on Alice's screen
    assert app.entry is not None and app.entry.request.label == "3 hits: evade dice"
    bob = {v.player: v for v in app.screen_views()}["Bob"]
    assert [a.text for a in bob.alerts if a.kind == "roll"] == ["Big Yellow Schoolbus: 3 hits: roll 1 evade die"]
    alice = {v.player: v for v in app.screen_views()}["Alice"]
    assert not [a for a in alice.alerts if a.kind == "roll"]
    app.entry.entered[:] = [6]
    app.finish_entry(0.0)
    assert app.entry is None and not [a for v in app.screen_views() for a in v.alerts if a.kind == "roll"]


def test_a_status_line_too_long_for_the_footer_turns_instead_of_being_cut() -> None:
    """Thunder Road's "Medium car · 3 spaces · coast" showed as "Medium car · 3 spaces · co…" (the coast,
    which changes how the car moves, lost), Gaslands' "gear 1 · 0 haz · Big Yellow S…": the status line's
    pieces now take turns in the footer, each whole, as a long alert's do."""
    from device.app import ALERT_PIECE_S, App
    from games import gaslands
    from games.core import Match

    setup = {"players": [{"name": "Bob", "vehicles": [{"type": "bus", "name": "Big Yellow Schoolbus"}]},
                         {"name": "Alice", "vehicles": [{"type": "car"}]}]}
    app = App(gaslands, Match.begin(gaslands.GAME, setup), buttons=ScriptedButtons(), displays=Screens(),
              clock=lambda: 0.0)
    status = app.menu().status
    assert "Big Yellow Schoolbus" in status and len(pages.footer_pieces(status)) == 2, status
    view = next(v for v in app.turn().views if v.player == "Bob")
    shown = [app.page_for("Bob", view, k * ALERT_PIECE_S, True).footer for k in range(2)]
    assert pages.unpieced(shown).split() == status.split(), shown
    assert shown[0].endswith("…") and not shown[1].endswith("…")  # the first piece is seen to go on


def test_a_stages_result_is_told_on_every_screen() -> None:
    """Grand Tour: after the last "End round" of a stage the screens went straight to the exhaustion count; no
    screen said who won the stage or who scored. The game's news is a notice on every screen, for long enough
    to be read across the table."""
    from device.app import ALERT_PIECE_S, NEWS_S, App
    from games import grand_tour
    from games.core import Match

    match = Match.begin(grand_tour.GAME, {"teams": ["red", "blue"], "stages": 2, "specialties": False})
    app = App(grand_tour, match, buttons=ScriptedButtons(), displays=Screens(), clock=lambda: 0.0)
    crossed = [{"rider": r, "squares": 0} for r in ("red.sprinteur", "blue.rouleur", "red.rouleur", "blue.sprinteur")]
    assert app.apply(Command("finish_round", {"crossed": crossed}), now=10.0).accepted
    said = "Stage 1 won by red Sprinteur: red +4 pts, blue +2 pts"
    assert [(n.text, n.player) for n in app.notices if n.kind == "news"] == [(said, None)]
    assert all(any(a.text == said for a in v.alerts) for v in app.screen_views())
    assert next(n for n in app.notices if n.kind == "news").until >= 10.0 + NEWS_S
    # on the menu page the news takes turns with the footer's own line (for 12 s it hid each count's status)
    red = next(v for v in app.screen_views() if v.player == "red")
    footers = {app.page_for("red", red, 10.0 + k * ALERT_PIECE_S, True).alert for k in range(4)}
    assert "" in footers and any(f.startswith("Stage 1 won") for f in footers), footers
    app.undo(1, 12.0)  # the stage is no longer over: its news goes
    assert not [n for n in app.notices if n.kind == "news"] and app.match.state.phase.value == "racing"


def test_the_tours_end_is_told_for_as_long_as_the_dashboards_take_to_show_it() -> None:
    """An audit: at the tour's end the news stood a minute over WINNER, the points and PLACE on every dashboard:
    its time was counted in the menu footer's 18 pieces, though with nothing to choose no menu page is shown."""
    from device.app import ALERT_PIECE_S, NEWS_S, App
    from device.dashboards import news_pieces
    from games import grand_tour
    from games.core import Match

    match = Match.begin(grand_tour.GAME, {"teams": ["red", "blue"], "stages": 1, "specialties": False})
    app = App(grand_tour, match, buttons=ScriptedButtons(), displays=Screens(), clock=lambda: 0.0)
    crossed = [{"rider": r, "squares": 0} for r in ("red.sprinteur", "blue.rouleur", "red.rouleur", "blue.sprinteur")]
    assert app.apply(Command("finish_round", {"crossed": crossed}), now=10.0).accepted
    news = next(n for n in app.notices if n.kind == "news")
    assert news.text.startswith("Tour won by red"), news.text  # the result first
    shown = len(news_pieces("grand_tour", news.text))
    assert not app.menu().choices and len(pages.footer_pieces(news.text)) > shown
    assert news.until == 10.0 + max(NEWS_S, 2 * ALERT_PIECE_S * shown)


def test_news_too_long_for_a_dashboards_notice_box_shows_its_pieces_in_turn() -> None:
    """Space Race: "USSR reached box 2 Animal in Space first; gains: two Space Race" — the notice box holds
    three lines and "attempts per turn" was never drawn. The news turns, each piece whole."""
    from device.app import ALERT_PIECE_S, App
    from device.dashboards.space_race import wrap as dashboard_wrap
    from games import space_race
    from games.core import Match

    app = App(space_race, Match.begin(space_race.GAME, {}), buttons=ScriptedButtons(), displays=Screens(),
              clock=lambda: 0.0)
    for c in ({"type": "begin_turn"}, {"type": "attempt", "side": "USSR", "ops": 4, "die": 1}, {"type": "end_turn"},
              {"type": "begin_turn"}, {"type": "attempt", "side": "USSR", "ops": 4, "die": 1}):
        assert app.apply(Command.from_json(c), now=0.0).accepted
    said = "USSR reached box 2 Animal in Space first; USSR gains: two Space Race attempts per turn"
    assert [n.text for n in app.notices if n.kind == "news"] == [said]
    shown = []
    for k in range(2):
        usa = next(v for v in app.screen_views(now=k * ALERT_PIECE_S) if v.player == "USA")
        shown.append(next(a.text for a in usa.alerts if a.kind == "news"))
    assert pages.unpieced(shown) == said and shown[0].endswith("…") and shown[1].startswith("…")  # it goes on
    assert all(len(dashboard_wrap(piece, 123, 9)) <= 3 for piece in shown)  # as the notice box wraps it


def test_thunder_road_news_shows_every_word_in_its_alert_box() -> None:
    """A walkthrough: after a scroll took three cars every dashboard read "Ben's large car, Cy's large car, Dee's
    large car eliminated with the r…" then "tile": the pieces were cut for the pages' wider notice box, and the
    Thunder Road alert box cut the third line. Each piece now fits the box it is drawn in, every word shown."""
    from device.app import ALERT_PIECE_S, App
    from device.dashboards.thunder_road import ALERT_LINES, ALERT_TEXT_WIDTH, _wrap
    from games import thunder_road
    from games.core import Match

    setup = {"players": [{"name": n} for n in ("Ana", "Ben", "Cy", "Dee")], "board": {"tiles": 5, "on_board": 3}}
    app = App(thunder_road, Match.begin(thunder_road.GAME, setup), buttons=ScriptedButtons(), displays=Screens(),
              clock=lambda: 0.0)
    for name in ("Ana", "Ben", "Cy", "Dee"):
        assert app.apply(Command("roll", {"player": name, "dice": [1, 3, 4, 6]}), now=0.0).accepted
    for c in (Command("assign", {"vehicle": "small", "die": 4}), Command("off", {"vehicle": "Ben/large"}),
              Command("off", {"vehicle": "Cy/large"}), Command("off", {"vehicle": "Dee/large"}),
              Command("scroll", {"eliminated": []})):
        assert app.apply(c, now=1.0).accepted, c
    said = "Ben's large car, Cy's large car, Dee's large car eliminated with the rear tile; Road scrolled: lead tile 4"
    assert [n.text for n in app.notices if n.kind == "news"] == [said]
    shown = []
    for k in range(5):
        ana = next(v for v in app.screen_views(now=1.0 + k * ALERT_PIECE_S) if v.player == "Ana")
        shown.append(next(a.text for a in ana.alerts if a.kind == "news"))
    pieces = list(dict.fromkeys(shown))
    assert pages.unpieced(pieces) == said and pieces[0].endswith("…"), pieces
    assert all(len(_wrap(p, ALERT_TEXT_WIDTH, 9, 99)) <= ALERT_LINES for p in pieces), pieces
    # and the box never splits the rulebook's "rear tile" ("eliminated with the rear" / "tile")
    assert _wrap("Ana's medium car eliminated with the rear tile", ALERT_TEXT_WIDTH, 9, 99)[-1] == "rear tile"


def test_an_undone_roll_says_whose_it_was_and_its_dice() -> None:
    """Space Race: BACK after a roll said "UNDONE: Roll the die" on both screens: not whose roll, nor what it
    was. It says the side, the step and the die."""
    from device.app import App
    from device.buttons import PressKind
    from games import space_race
    from games.core import Match

    clock = [0.0]
    buttons = ScriptedButtons()
    app = App(space_race, Match.begin(space_race.GAME, {}), buttons=buttons, displays=Screens(),
              clock=lambda: clock[0])

    def press(key: str) -> None:
        buttons.press(key, PressKind.SHORT)
        clock[0] += 0.1
        app.step(clock[0])

    press("ok")  # Begin turn 1
    while app.entry is None:
        press("ok")  # USSR attempt › 2 Ops › Roll the die
    app.entry.entered[:] = [2]
    app.finish_entry(clock[0])
    assert app.match.state.side("USSR").box == 1
    press("back")  # the dashboards show the news: the first BACK brings the menu back
    press("back")  # the turn is anybody's, the roll the USSR's: asked first (as at a Grand Tour stage's start)
    assert [n.text for n in app.notices if n.kind == "info"] == ["BACK again to undo USSR: Roll d6 › Roll the die: 2"]
    press("back")
    assert [n.text for n in app.notices if n.kind == "undone"] == ["UNDONE: USSR: Roll d6 › Roll the die: 2"]


def test_an_attacks_hits_evaded_and_hull_left_are_told_on_every_screen() -> None:
    """"hits on 4+, a 6 is two hits; the target rolls evade dice equal to its current gear, each 6 cancels one
    hit" — after an attack the attacker saw "recorded: Attack… › Big…" and the target's hull bar shrank; no
    screen said how many hits, how many were evaded or what hull was left. An attack with no hit asks no evade
    dice (Bob was told "0 hits: roll 1 evade die")."""
    from device.app import App
    from games import gaslands
    from games.core import Match

    setup = {"players": [{"name": "Alice", "vehicles": [{"type": "car", "name": "Rust Bucket"}]},
                         {"name": "Bob", "vehicles": [{"type": "bus", "name": "Big Yellow Schoolbus"}]}]}
    app = App(gaslands, Match.begin(gaslands.GAME, setup), buttons=ScriptedButtons(), displays=Screens(),
              clock=lambda: 0.0)
    for command in (Command("choose_template", {"template": "gentle", "hand": "left"}), Command("place_template"),
                    Command("skid_roll", {"faces": []}), Command("confirm")):
        assert app.apply(command, now=0.0).accepted, command
    bus = next(c for c in next(c for c in app.menu().choices if c.label == "Attack…").children
               if "Big Yellow" in c.label)
    app.open_entry(bus.dice)
    app.entry.entered[:] = [6, 4, 2]
    app.finish_entry(0.0)
    app.entry.entered[:] = [6]
    app.finish_entry(0.0)
    # read "2 hits, 1 evaded": one of two?; and whose attack it was (an audit: "NOTE …: 2 hits" named no attacker)
    said = "Attack: Rust Bucket on Big Yellow Schoolbus: 3 hits, 1 evaded: 2 taken · hull 14"
    assert [n.text for n in app.notices if n.kind == "news"] == [said]
    from device.dashboards.gaslands import news_pieces

    assert all(any(a.text == news_pieces(said)[0] for a in v.alerts) for v in app.screen_views(0.0))
    app.open_entry(bus.dice)
    app.entry.entered[:] = [1, 2, 3]
    app.finish_entry(1.0)  # no hit: nothing to evade, recorded at once
    assert app.entry is None and app.history[-1].command.args == {"target": "bob-1", "dice": [1, 2, 3], "evade": []}
    assert [n.text for n in app.notices if n.kind == "news"] == ["Attack: Rust Bucket on Big Yellow Schoolbus: no hit"]
    app.apply(Command("hits", {"vehicle": "bob-1", "count": 1}), now=2.0)  # a later hit: not the attack's news
    assert [v.news for v in app.turn().views] == ["", ""]


def test_news_is_the_last_decisions_and_goes_with_the_next_one() -> None:
    """Space Race walkthrough: "… gains: two Space Race attempts per turn" stood on both screens for 12 s over the
    next card played and the next box reached ("USSR reached box 3" was never told). News says what the last
    decision settled: a later decision with none takes it away."""
    from device.app import App
    from games import space_race
    from games.core import Match

    app = App(space_race, Match.begin(space_race.GAME, {}), buttons=ScriptedButtons(), displays=Screens(),
              clock=lambda: 0.0)
    for c in ({"type": "begin_turn"}, {"type": "attempt", "side": "USSR", "ops": 4, "die": 1}, {"type": "end_turn"},
              {"type": "begin_turn"}, {"type": "attempt", "side": "USSR", "ops": 4, "die": 1}):
        assert app.apply(Command.from_json(c), now=0.0).accepted
    assert [n.text for n in app.notices if n.kind == "news"][0].endswith("gains: two Space Race attempts per turn")
    # a card played a second later: nothing settled, the news stays until each of its pieces was shown once
    # (a review: a vehicle eliminated by a scroll was told for the one press to "Moved 4")
    assert app.apply(Command.from_json({"type": "attempt", "side": "USSR", "ops": 4}), now=1.0).accepted
    turns = app._news_turns(app.notices[-1].text)  # its pieces of 2 s on the footer, not its 12 s
    # (on the footer after the chooser's own line's pieces)
    status = pages.footer_pieces(app.menu().status)
    assert turns == len(status) + len(pages.footer_pieces(app.notices[-1].text)) and turns >= 3
    assert [n.until for n in app.notices if n.kind == "news"] == [max(4.0, 2.0 * turns)]
    assert app.apply(Command.from_json({"type": "roll", "die": 6}), now=4.0 * turns + 1).accepted  # its own news
    assert [n.text for n in app.notices if n.kind == "news"] == ["USSR rolls 6 for box 3: failure"]
    assert app.apply(Command.from_json({"type": "end_turn"}), now=4.0 * turns + 20).accepted  # no news
    assert not [n for n in app.notices if n.kind == "news"]  # later: it goes with the next decision
    for c in ({"type": "begin_turn"},):
        assert app.apply(Command.from_json(c), now=10.0 * turns).accepted
    assert app.apply(Command.from_json({"type": "attempt", "side": "USSR", "ops": 4, "die": 1}),
                     now=10.0 * turns + 1).accepted
    assert [n.text for n in app.notices if n.kind == "news"] == ["USSR reached box 3 Man in Space first: +2 VP"]


def test_news_at_anybodys_step_shows_on_every_dashboard_whole_until_a_press(tmp_path: Path) -> None:
    """Space Race walkthrough (F00, F01): all turn long the menu stood on both screens, so nobody saw their own box,
    VP or attempts, and "USSR reached box 1 Earth Satellite first: +2 VP" came as footer pieces between the menu's
    status, 12 s to read.  A decision whose news every player is told, with anybody's step after it, puts the menu
    away: each screen shows its dashboard with the news whole; the first SELECT, OK or BACK only brings the menu back
    (NEXT acts, as on any dashboard), as after a while without a press.  A chooser's step keeps its menu
    (Thunder Road, below); a game over has none to put away (a review: BACK there woke a menu that does not show, and
    only a third press undid)."""
    from device.dashboards import news_pieces

    t = Table("space_race", tmp_path)
    t.choose("Begin turn 1")
    t.go("USSR attempt · box 1", "2 Ops")
    t.go("Roll the die")
    t.press("select", "ok", "next")  # the d6 shows 2: success
    news = "USSR reached box 1 Earth Satellite first: +2 VP"
    assert [n.text for n in t.app.notices if n.kind == "news"] == [news]
    assert news_pieces("space_race", news) == [news]  # whole in the notice box
    for player in ("USA", "USSR"):
        view = next(v for v in t.app.screen_views() if v.player == player)
        assert t.app.page_for(player, view, t.t, True) is None  # the dashboard
        assert any(a.text == news for a in view.alerts)
        assert _same(t.image(player), t.dashboard(player))
    decided = len(t.app.history)
    t.press("ok")  # only brings the menu back
    assert len(t.app.history) == decided and t.app.menu_shown
    assert t.app.status_text() == "Turn 1: USA attempt · box 1 (1/4)"
    t.close()

    from device.app import App
    from games import thunder_road
    from games.core import Match

    setup = {"players": [{"name": n} for n in ("Ana", "Ben", "Cy")], "board": {"tiles": 5, "on_board": 3}}
    app = App(thunder_road, Match.begin(thunder_road.GAME, setup), buttons=ScriptedButtons(), displays=Screens(),
              clock=lambda: 0.0)
    for c in ({"type": "roll", "dice": {"Ana": [1, 2, 3, 4], "Ben": [1, 2, 3, 4], "Cy": [1, 2, 3, 4]}},
              {"type": "assign", "vehicle": "large", "die": 4},
              {"type": "scroll", "eliminated": ["Ben/small", "Cy/large"]}):
        assert app.apply(Command.from_json(c), now=1.0).accepted
    assert [n.kind for n in app.notices if n.kind == "news"] == ["news"]
    assert app.chooser() == "Ana" and app.menu_shown  # Ana moves on from her menu, the news on the others' dashboards

    tour = Table("grand_tour", tmp_path / "tour", {"stages": 1, "teams": ["red", "blue"], "specialties": False})
    crossed = [{"rider": r, "squares": q} for r, q in (("red.rouleur", 3), ("blue.sprinteur", 2), ("red.sprinteur", 1),
                                                      ("blue.rouleur", 0))]
    assert tour.app.apply(Command("finish_round", {"crossed": crossed, "pack": False}), now=tour.t).accepted
    assert tour.app.match.state.finished and [n for n in tour.app.notices if n.kind == "news"]
    tour.press("back")  # the tour's end: BACK asks at once, as before
    assert any(n.text.startswith("BACK again to undo round 1") for n in tour.app.notices), tour.app.notices
    tour.close()


def test_an_undo_notice_goes_when_the_table_decides_again() -> None:
    """Grand Tour walkthrough: End round › No pack, BACK, End round › No pack again — every footer still read
    "pack", the tail of "UNDONE: Who crossed the line › End round › No pack", as if a pack had been recorded."""
    from device.app import App
    from games import grand_tour
    from games.core import Match

    match = Match.begin(grand_tour.GAME, {"teams": ["red", "blue"], "stages": 2, "specialties": False})
    app = App(grand_tour, match, buttons=ScriptedButtons(), displays=Screens(), clock=lambda: 0.0)
    assert app.apply(Command("cross", {"rider": "red.sprinteur", "squares": 1}), now=0.0).accepted
    assert app.apply(Command("end_round", {"pack": False}), now=0.5).accepted
    app.undo(1, 1.0)
    assert [n.kind for n in app.notices if n.kind == "undone"] == ["undone"]
    assert app.apply(Command("end_round", {"pack": False}), now=1.5).accepted
    assert not [n for n in app.notices if n.kind == "undone"]


def test_news_outlives_the_next_press_until_the_choosers_footer_showed_all_of_it() -> None:
    """A review: Ana's scroll eliminated Ben's small car and Cy's large car, "Moved 4" followed half a second
    later, and Ben (choosing next) read "Ben's small car, Cy's" and "large car eliminated with" on his menu
    page's footer, never "the rear tile": the news was kept for the dashboards' pieces, not the footer's."""
    from device.app import ALERT_PIECE_S, App
    from games import thunder_road
    from games.core import Match

    setup = {"players": [{"name": n} for n in ("Ana", "Ben", "Cy")], "board": {"tiles": 5, "on_board": 3}}
    app = App(thunder_road, Match.begin(thunder_road.GAME, setup), buttons=ScriptedButtons(), displays=Screens(),
              clock=lambda: 0.0)
    for c in ({"type": "roll", "dice": {"Ana": [1, 2, 3, 4], "Ben": [1, 2, 3, 4], "Cy": [1, 2, 3, 4]}},
              {"type": "assign", "vehicle": "large", "die": 4}):
        assert app.apply(Command.from_json(c), now=99.0).accepted
    assert app.apply(Command.from_json({"type": "scroll", "eliminated": ["Ben/small", "Cy/large"]}), now=100.0).accepted
    news = next(n for n in app.notices if n.kind == "news")
    footer = pages.footer_pieces(news.text)
    assert len(footer) >= 2
    assert app.apply(Command.from_json({"type": "move", "spaces": 4}), now=100.5).accepted
    kept = next(n for n in app.notices if n.kind == "news")
    assert kept.until >= 100.0 + ALERT_PIECE_S * len(footer)
    chooser = app.chooser()
    view = next(v for v in app.turn().views if v.player == chooser)
    times = [100.5 + 0.5 * i for i in range(int((kept.until - 100.5) / 0.5))]
    shown = [app.page_for(chooser, view, now, True).alert for now in times]
    assert set(footer) <= set(shown), shown  # every piece on the chooser's footer before it goes
    # each text whole before the other: the chooser's own line, then the news's pieces in a row
    assert [a for i, a in enumerate(shown) if a and (i == 0 or shown[i - 1] != a)] == footer


def test_a_footer_piece_after_the_first_begins_with_an_ellipsis() -> None:
    """A game-night audit: the tail of The Brick's news, "evaded: 3 taken · hull 9", stood alone in Cy's footer
    and read as Cy's own roll.  A piece that goes on from another begins "…", as one that goes on ends "…"."""
    pieces = pages.footer_pieces("The Brick: 4 hits, 1 evaded: 3 taken · hull 9 · 2 hazards")
    assert len(pieces) >= 2 and pieces[0][0] != "…" and all(p.startswith("…") for p in pieces[1:]), pieces
    assert all(p.endswith("…") for p in pieces[:-1]) and not pieces[-1].endswith("…"), pieces
    assert pages.unpieced(pieces) == "The Brick: 4 hits, 1 evaded: 3 taken · hull 9 · 2 hazards"
    assert all(pages.text_width(p, pages.BODY_SIZE) <= pages.FOOTER_WIDTH for p in pieces), pieces


def test_a_long_dice_line_turns_on_time_whatever_the_alerts_beat(tmp_path) -> None:
    """A review: with alerts lit 1.5 s of each 2 s, the screens were redrawn only when that flipped; a dice line
    too long for the screen turns every 1.5 s, and its turns came up to 1 s late, one shown for half a second."""

    class Shown:
        def __init__(self) -> None:
            self.log: list[str] = []

        def show(self, player: str, image) -> bool:
            self.log.append(player)
            return True

    t = [0.0]
    screens = Shown()
    app = _bike_skid_roll_entered(screens, lambda: t[0])
    eve = next(v for v in app.turn().views if v.player == "Eve")
    assert pages.dice_page_turns(app.page_for("Eve", eve, 0.0, True)) > 1
    shown_turn = None
    for i in range(1200):
        t[0] = now = 100.0 + i * 0.01
        before = len(screens.log)
        app.step(now)
        want = app.page_for("Eve", next(v for v in app.turn().views if v.player == "Eve"), now, True).turn
        if "Eve" in screens.log[before:]:
            shown_turn = want
        assert shown_turn == want, f"turn {want} due, turn {shown_turn} on the screen at {now:.2f}"
