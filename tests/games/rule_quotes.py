"""Which rule sentences of a shared/rules file no test docstring quotes.

The rules files tag what is certain with [seed] or [V]: on a sentence, at the end of a bullet (covering the
bullet), or on a section heading (covering the section). Every such sentence must stand, markdown and tags
aside, in the docstring of a test, so no rule goes untested unnoticed. Tables are checked by their own tests.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

SHARED_RULES = Path(__file__).resolve().parents[3] / "shared" / "rules"

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


def docstrings(paths: list[Path]) -> list[str]:
    found = []
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.Module)):
                doc = ast.get_docstring(node)
                if doc:
                    found.append(_norm(doc))
    return found




def missing_quotes(rules: Path, tests: list[Path]) -> tuple[list[str], list[str]]:
    """(the tagged sentences, those no docstring in ``tests`` quotes)."""
    sentences = tagged_sentences(rules.read_text(encoding="utf-8"))
    docs = " || ".join(docstrings(tests))
    return sentences, [s for s in sentences if s not in docs]
