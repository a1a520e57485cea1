"""Rule tables as data: the vehicle types and the permitted-gears chart.

Both ship inside the package (``data/*.toml``) with only what the rules reference confirms; the owner fills
the unknown cells from the icons on their own templates, or overrides whole rows from the setup file.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping, Sequence
from functools import cache
from importlib import resources
from typing import Any

from games.core import Illegal
from games.gaslands.state import TemplateStatus

TEMPLATES: tuple[str, ...] = (
    "short_straight",
    "medium_straight",
    "long_straight",
    "gentle",
    "turn",
    "hard",
    "veer",
    "swerve",
    "hairpin",
)
GEARS = range(1, 7)
#: The words a chart cell may hold (:class:`TemplateStatus`).
STATUS_WORDS = frozenset(s.value for s in TemplateStatus)


@cache
def _packaged(name: str) -> Mapping[str, Any]:
    with resources.files("games.gaslands").joinpath("data", name).open("rb") as fh:
        return tomllib.load(fh)


def vehicle_types() -> dict[str, dict[str, Any]]:
    return {k: dict(v) for k, v in _packaged("vehicles.toml").items()}


def default_chart() -> dict[str, list[str]]:
    return {k: list(v) for k, v in _packaged("templates.toml").items()}


def normalise_chart(override: Mapping[str, Any] | None = None) -> dict[str, list[str]]:
    """The packaged chart with the owner's rows laid over it, checked cell by cell."""
    chart = default_chart()
    for name, row in (override or {}).items():
        if name not in TEMPLATES:
            raise Illegal(f"chart: {name!r} is not a template; templates are {', '.join(TEMPLATES)}")
        if not isinstance(row, list) or len(row) != 6 or not all(isinstance(c, str) for c in row):
            raise Illegal(f"chart: {name} needs six entries, one per gear 1..6, each a word like \"permitted\"")
        chart[name] = list(row)
    for name, row in chart.items():
        for gear, cell in zip(GEARS, row):
            if cell not in STATUS_WORDS:
                raise Illegal(f"chart: {name} gear {gear} is {cell!r}; allowed: {', '.join(sorted(STATUS_WORDS))}")
    for gear in GEARS:
        if not any(TemplateStatus(row[gear - 1]).usable for row in chart.values()):
            raise Illegal(f"chart: in gear {gear} every template is not_permitted, so a vehicle in gear {gear} "
                          "could not move and the touch-move rule would have no template to pick; mark the ones "
                          f"your templates allow in gear {gear} (or \"unknown\")")
    return chart


def chart_contradictions(override: Mapping[str, Any] | None) -> list[str]:
    """The cells of the owner's chart rows that say otherwise than the packaged chart where it is certain, in the
    rulebook's words ("Turn in gear 5: permitted here, not permitted in the rules"): a template the rules permit
    marked not permitted, or the reverse, or a certain icon changed.  The table plays the owner's chart (it may
    be a house rule); a mistyped row is said, not taken in silence (a rules audit: one row let a Turn in gear 5
    pass with skid dice).  A cell the rules leave unknown, or an icon on a plain "permitted" (gear 5's are not
    given), is the owner's to fill in and not said."""
    packaged = default_chart()
    said = []
    for name, row in (override or {}).items():
        if name not in packaged or not isinstance(row, list):
            continue
        for gear, (was, now) in enumerate(zip(packaged[name], row), start=1):
            if was == "unknown" or now == was or now not in STATUS_WORDS:
                continue
            old, new = TemplateStatus(was), TemplateStatus(now)
            if old.usable != new.usable or old in (TemplateStatus.TRIVIAL, TemplateStatus.HAZARDOUS):
                said.append(f"{name.replace('_', ' ').title()} in gear {gear}: {_words(new)} here, {_words(old)} in "
                            "the rules")
    return said


def _words(status: TemplateStatus) -> str:
    return status.value.replace("_", " ")


def check_template(template: Any) -> None:
    """Refuse what is not one of the rulebook's maneuver templates, naming them."""
    if template not in TEMPLATES:
        named = ", ".join(t.replace("_", " ").title() for t in TEMPLATES)
        raise Illegal(f"{template!r} is not a maneuver template; the templates are {named}")


def template_status(
    template: str, gear: int, chart: Mapping[str, Sequence[str]], *, full_throttle: bool = False
) -> TemplateStatus:
    """The chart's verdict for one template in one gear.

    Full Throttle (the Bike): the Long Straight is permitted in any gear and is never trivial or hazardous.
    """
    check_template(template)
    if not 1 <= gear <= 6:
        raise Illegal(f"gear {gear} does not exist: gears are 1 to 6")
    if full_throttle and template == "long_straight":
        return TemplateStatus.PERMITTED
    return TemplateStatus(chart[template][gear - 1])
