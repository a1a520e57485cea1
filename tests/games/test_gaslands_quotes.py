"""Every sentence of shared/rules/gaslands.md tagged [seed] or [V] (on its line or by its section heading)
is quoted by a test docstring in test_gaslands_rules.py, so no rule sentence goes untested unnoticed.
Tables are checked by their own tests (the chart rows and the vehicle table); a sentence counts as quoted
when its text, markdown and tags aside, stands in a docstring."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

RULES = Path(__file__).resolve().parents[3] / "shared" / "rules" / "gaslands.md"
TESTS = [
    Path(__file__).with_name("test_gaslands_rules.py"),
    Path(__file__).resolve().parents[1] / "vision" / "test_template_dimensions.py",  # the Long Straight's size
]
TAG = re.compile(r"\[(seed|V)[^\]]*\]")


def _norm(text: str) -> str:
    text = text.replace("**", "").replace("*", "").replace("`", "")
    text = re.sub(r"\[(seed|V|P|\?)[^\]]*\]", " ", text)
    return re.sub(r"\s+", " ", text).strip(" .;")


def tagged_sentences(markdown: str) -> list[str]:
    out: list[str] = []
    section_tagged = False
    blocks: list[tuple[str, bool]] = []
    body = markdown[markdown.index("\n## "):]  # the preamble explains the tags; the rules start below
    for line in body.splitlines():
        if line.startswith("#"):
            section_tagged = bool(TAG.search(line))
            continue
        if line.lstrip().startswith("|") or not line.strip():
            blocks.append(("", False))
            continue
        starts = line.startswith(("- ", "1.", "2.", "3.")) or not blocks or not blocks[-1][0]
        if starts:
            blocks.append((line, section_tagged))
        else:
            blocks[-1] = (blocks[-1][0] + " " + line, blocks[-1][1])
    for block, in_tagged_section in blocks:
        if not block or not (in_tagged_section or TAG.search(block)):
            continue
        block = re.sub(r"^(- |\d\. )", "", block.strip())
        ends_tagged = bool(re.search(r"\[(seed|V)[^\]]*\]\W*$", block))  # a bullet's closing tag covers it all
        block = re.sub(r"(\[[^\]]*\]\s*)+", lambda m: m.group(0).strip() + " ", block)
        for sentence in re.split(r"(?<=[.\]])\s+(?=[A-Z0-9(\"*])", block):
            s = _norm(sentence)
            if len(s) > 25 and (in_tagged_section or TAG.search(sentence) or ends_tagged):
                out.append(s)
    return out


def docstrings() -> list[str]:
    found = []
    for path in TESTS:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.Module)):
                doc = ast.get_docstring(node)
                if doc:
                    found.append(_norm(doc))
    return found


@pytest.mark.skipif(not RULES.exists(), reason=f"the shared rules file {RULES} is not there (shared/ beside the repo)")
def test_every_tagged_sentence_is_quoted_by_a_test() -> None:
    sentences = tagged_sentences(RULES.read_text(encoding="utf-8"))
    assert len(sentences) >= 20
    docs = " || ".join(docstrings())
    missing = [s for s in sentences if s not in docs]
    assert not missing, "rule sentences no test quotes:\n" + "\n".join(missing)
