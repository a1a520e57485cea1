"""Print the versions the tests ran with: every distribution ``pitboard[test,lint]`` needs, transitively, as
installed in this environment, one ``name==version`` a line (pip's constraints format), under a header.

``./dev pin`` writes ``tests/constraints-py311.txt`` with it after installing the newest versions in range;
``./dev test`` installs those versions (on Python 3.11), so that the suite does not change under a clean
clone's CI when a library publishes a release (OpenCV 5.1 once measured a die a pixel larger than 5.0; Starlette
warns that its test client leaves httpx).  The build tools (pip, setuptools) are left out: they only build.
"""

from __future__ import annotations

import re
import sys
from importlib import metadata

from packaging.requirements import Requirement

#: Distributions not pinned: the installer and the build backend.
UNPINNED = {"pip", "setuptools", "wheel"}


def _key(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def needed(root: str = "pitboard", extras: frozenset[str] = frozenset({"test", "lint"})) -> dict[str, str]:
    """{distribution name: installed version} for what ``root[extras]`` requires, transitively (markers
    evaluated here; a requirement not installed is left out: its own needs are unknown)."""
    found: dict[str, tuple[str, str, frozenset[str]]] = {}
    todo: list[tuple[str, frozenset[str]]] = [(root, extras)]
    while todo:
        name, wanted = todo.pop()
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue
        key = _key(dist.metadata["Name"])
        if key in found and wanted <= found[key][2]:
            continue
        had = found[key][2] if key in found else frozenset()
        found[key] = (dist.metadata["Name"], dist.version, had | wanted)
        for raw in dist.requires or []:
            req = Requirement(raw)
            if req.marker is None or any(req.marker.evaluate({"extra": e}) for e in {"", *wanted}):
                todo.append((req.name, frozenset(req.extras)))
    return {name: version for key, (name, version, _) in sorted(found.items())
            if key != _key(root) and key not in UNPINNED}


def main() -> int:
    py = f"{sys.version_info.major}.{sys.version_info.minor}"
    print(f"# The versions the test suite ran with on Python {py} (tools/tested_versions.py; `./dev pin` rewrites")
    print("# this file after installing the newest in range). `./dev test` installs them on Python 3.11.")
    for name, version in needed().items():
        print(f"{name}=={version}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
