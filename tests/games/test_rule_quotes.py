"""Every [seed] and [V] sentence of each game's rules file is quoted by a test that checks it."""

from __future__ import annotations

from pathlib import Path

import pytest

from rule_quotes import SHARED_RULES, missing_quotes

HERE = Path(__file__).parent
GAMES = {
    "gaslands.md": [HERE / "test_gaslands_rules.py", HERE.parent / "vision" / "test_template_dimensions.py"],
    "thunder-road.md": [HERE / "test_thunder_road_rules.py"],
    "space-race.md": [HERE / "test_space_race_rules.py"],
    "grand-tour.md": [HERE / "test_grand_tour_rules.py"],
}


@pytest.mark.parametrize("rules", sorted(GAMES))
def test_every_tagged_sentence_is_quoted_by_a_test(rules: str) -> None:
    path = SHARED_RULES / rules
    if not path.exists():
        pytest.skip(f"the shared rules file {path} is not there (shared/ is expected beside the repository)")
    sentences, missing = missing_quotes(path, GAMES[rules])
    assert len(sentences) >= 10
    assert not missing, "rule sentences no test quotes:\n" + "\n".join(missing)
