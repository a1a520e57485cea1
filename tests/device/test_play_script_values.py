"""`pitboard play --script`: a line whose value cannot even be read is a clear message, never a traceback
(issue: "an integer of more than 4,300 digits in a script line"; "deeply nested TOML/JSON")."""

from __future__ import annotations

from pathlib import Path

import pytest

from device.cli import main


@pytest.mark.parametrize("line, said", [
    ('{"type": "roll", "die": ' + "9" * 5000 + "}", "a number too long to read"),
    ('{"type": "roll", "die": ' + "[" * 100_000 + "]" * 100_000 + "}", "nested too deeply"),
])
def test_an_unreadable_value_is_named_by_its_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                  line: str, said: str) -> None:
    script = tmp_path / "s.jsonl"
    script.write_text('{"type": "begin_turn"}\n' + line + "\n", encoding="utf-8")
    setup = tmp_path / "setup.toml"
    setup.write_text('edition = "deluxe"\n', encoding="utf-8")
    code = main(["play", "space_race", "--setup", str(setup), "--script", str(script),
                 "--db", str(tmp_path / "g.sqlite"), "--json"])
    err = capsys.readouterr().err
    assert code == 2 and f"s.jsonl:2: {said}" in err and "Nothing of the script was applied" in err
    assert not (tmp_path / "g.sqlite").exists()  # the whole script is read before the log is opened
    assert "Traceback" not in err
