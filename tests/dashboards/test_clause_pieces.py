"""A text shown in turn on a screen is cut where its words pause, into pieces as even as they can be.

A screens audit: cut greedily, the pieces ended anywhere and the last was often one word: the Grand Tour's round
news on the phone-sized footer ended "…a pack: all take the…" / "…first's time", a Space Race gain "…Race attempts
per…" / "…turn", a fire "…of each…" / "…activation". The pieces are as many as before; only where they end moved."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from device.dashboards.common import GOES_ON, clause_pieces, text_width
from device.dashboards.pages import FOOTER_WIDTH, footer_pieces, notice_pieces, unpieced, wrap

ROUND_NEWS = ("At the line: 1st red Sprinteur (10 s bonus), 2nd blue Rouleur (10 s bonus); a pack: all take the "
              "first's time")
GAIN = "USSR reached box 2 Animal in Space first; gains: two Space Race attempts per turn"
FIRE = "Dee's medium car is ON FIRE! roll the Fire die at the start of each activation"


def _greedy(text: str) -> list[str]:
    inner = FOOTER_WIDTH - 2 * text_width(GOES_ON, 10) - 2
    return wrap(text, width=inner, size=10)


def test_no_piece_is_a_lone_last_word() -> None:
    for text in (ROUND_NEWS, GAIN, FIRE):
        pieces = footer_pieces(text)
        assert len(pieces) == len(_greedy(text))  # as many pieces as a greedy cut: none more to wait through
        assert len(pieces[-1].removeprefix(GOES_ON).split()) > 1, pieces
        assert unpieced(pieces) == text


def test_a_piece_ends_at_the_clause_where_that_fits() -> None:
    """The notice box's two pieces of the round news: greedily "…2nd blue Rouleur (10 s…" / "…bonus); a pack: …",
    a bonus cut from its seconds; now the first crosser's words, then the second's and the pack's."""
    assert notice_pieces(ROUND_NEWS) == ["At the line: 1st red Sprinteur (10 s bonus),…",
                                         "…2nd blue Rouleur (10 s bonus); a pack: all take the first's time"]
    assert notice_pieces(GAIN) == ["USSR reached box 2 Animal in Space first;…",
                                   "…gains: two Space Race attempts per turn"]
    assert notice_pieces(FIRE) == ["Dee's medium car is ON FIRE!…", "…roll the Fire die at the start of each activation"]


def test_no_cut_is_made_that_the_lines_cannot_hold() -> None:
    assert clause_pieces("a b c", 40, 10, 1, 0, lambda t, w: [t]) is None  # no pieces asked
    assert clause_pieces("Supercalifragilistic word", 30, 10, 1, 2, lambda t, w: [t]) is None  # a word wider
    assert clause_pieces("one\ntwo", 200, 10, 1, 2, lambda t, w: [t]) is None  # paragraphs: kept as they come


WORDS = st.sampled_from(["Rust", "Bucket", "evaded:", "3", "taken", "·", "hull", "9;", "The", "Brick,", "ON", "FIRE!",
                         "and", "a", "pack:", "Sprinteur", "(10", "s", "bonus),", "gear", "4", "Hairpin", "the"])


@settings(max_examples=60, deadline=None)
@given(st.lists(WORDS, min_size=2, max_size=24))
def test_every_piece_fits_its_line_and_every_word_is_kept_in_order(words: list[str]) -> None:
    text = " ".join(words)
    pieces = footer_pieces(text)
    if len(pieces) == 1:
        assert pieces == [text]
        return
    assert len(pieces) == len(_greedy(text))
    assert unpieced(pieces) == text
    for i, piece in enumerate(pieces):
        assert piece.startswith(GOES_ON) == (i > 0) and piece.endswith(GOES_ON) == (i < len(pieces) - 1)
        assert text_width(piece, 10) <= FOOTER_WIDTH, piece


def test_a_piece_does_not_cut_a_name_a_bracket_or_a_number_from_its_word() -> None:
    """A review of the first cut for evenness: "Ben's medium…" / "…car", "2nd green…" / "…Sprinteur", "(gear…" /
    "…1):", "box…" / "…4 Man in Earth Orbit" — the evenness alone moved cuts into names."""
    cases = {
        "Alice · Rust Bucket (gear 1): 1.3 skid check, roll up to 4 skid dice": ["Rust Bucket", "(gear 1)"],
        "Dee's medium car is ON FIRE!": ["Dee's medium car", "ON FIRE!"],
        "USSR reached box 5 Lunar Orbit second: +1 VP": ["box 5", "+1 VP"],
    }
    for text, kept in cases.items():
        for box in (footer_pieces, notice_pieces):
            pieces = [p.removeprefix(GOES_ON).removesuffix(GOES_ON) for p in box(text)]
            for words in kept:
                assert any(words in p for p in pieces), (words, pieces)


def test_a_rulebook_term_is_kept_whole_with_a_pieces_mark_stuck_to_it() -> None:
    """A piece ending "…is ON FIRE!…" was wrapped again by its box as "ON" / "FIRE!…": the mark hid the term."""
    from device.dashboards.common import terms

    assert terms("Ana's small car is ON FIRE!…") == ["Ana's", "small", "car", "is", "ON FIRE!…"]
    assert terms("…with the rear tile;…") == ["…with", "the", "rear tile;…"]


def test_a_title_bars_path_is_cut_in_its_order() -> None:
    """A title's "›" parts read in order: cut for evenness it read "21 to 40 cards……" / "…› 26 to 30 cards"."""
    from device.dashboards.pages import title_pieces

    pieces = title_pieces("red Sprinteur › 21 to 40 cards › 26 to 30 cards", "2/6")
    assert not any(p.startswith(GOES_ON + "›") for p in pieces), pieces


def test_a_label_is_not_a_piece_alone_and_a_dies_faces_are_no_name() -> None:
    """The demo's frames at the first cut for names: "camera: SHIFT HAZARD SHIFT" came as "camera:…" alone (two faces
    side by side were taken for a name, and a cut after the label's colon kept them whole)."""
    assert footer_pieces("camera: SHIFT HAZARD SHIFT")[0] != "camera:…"
    assert footer_pieces("camera: SHIFT HAZARD SHIFT SPIN")[0].startswith("camera: SHIFT")
