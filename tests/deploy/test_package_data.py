"""What the install carries: ``pip install`` copies a package's data files only where pyproject.toml's
``[tool.setuptools.package-data]`` names their kind.  A file the code reads that is not named works from the
repository (CI, the demo) and is missing on the Pi (the dice models' sums list would have been: every d6 read
refused there)."""

from __future__ import annotations

import fnmatch
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
#: Kinds that are documentation, not read by the code.
DOCS = ("*.md",)


def test_every_data_file_of_the_packages_is_installed() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text("utf-8"))
    globs = project["tool"]["setuptools"]["package-data"]["*"]
    packages = project["tool"]["setuptools"]["packages"]["find"]["include"]
    roots = sorted({p.rstrip("*") for p in packages})
    left_out = []
    for root in roots:
        for path in (REPO / root).rglob("*"):
            if not path.is_file() or "__pycache__" in path.parts or path.suffix in (".py", ".pyc"):
                continue
            if not any(fnmatch.fnmatch(path.name, g) for g in (*globs, *DOCS)):
                left_out.append(str(path.relative_to(REPO)))
    assert (REPO / "vision" / "dice" / "models.sha256").is_file()
    assert left_out == [], f"not installed by pip (add their kind to package-data): {left_out}"
