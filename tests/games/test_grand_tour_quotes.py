"""Every sentence tagged [seed] or [V] in shared/rules/grand-tour.md is quoted by a test docstring in
test_grand_tour_rules.py (so no rule sentence goes untested unnoticed)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

RULES = Path(__file__).resolve().parents[3] / "shared" / "rules" / "grand-tour.md"
TESTS = [Path(__file__).with_name("test_grand_tour_rules.py")]


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text.replace("**", "")).strip()


def tagged_sentences(markdown: str) -> list[str]:
    """Sentences of the sections whose heading carries [seed] or [V] (tables excluded)."""
    out: list[str] = []
    tagged = False
    blocks: list[str] = []
    for line in markdown.splitlines():
        if line.startswith("#"):
            tagged = "[seed]" in line or "[V]" in line
            continue
        if not tagged or line.lstrip().startswith("|"):
            continue
        if line.startswith("- ") or not line.strip() or not blocks:
            blocks.append(line[2:] if line.startswith("- ") else line)
        else:
            blocks[-1] += " " + line
    for block in blocks:
        for sentence in re.split(r"(?<=\.)\s+(?=[A-Z0-9(\"])", _norm(block)):
            if sentence:
                out.append(sentence)
    return out


def docstrings(paths: list[Path]) -> list[str]:
    found = []
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.ClassDef, ast.Module)):
                doc = ast.get_docstring(node)
                if doc:
                    found.append(_norm(doc))
    return found


@pytest.mark.skipif(not RULES.exists(), reason="shared rules file not present")
def test_every_tagged_sentence_is_quoted() -> None:
    sentences = tagged_sentences(RULES.read_text(encoding="utf-8"))
    assert len(sentences) >= 10
    docs = docstrings(TESTS)
    missing = [s for s in sentences if not any(s in d for d in docs)]
    assert not missing, "rule sentences no test quotes:\n" + "\n".join(missing)
