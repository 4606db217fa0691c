"""The recorded history of the packed states' layouts (``layouts.py``): written here, never by hand.

Every layout a game's states were ever packed in stays recorded under its fingerprint, so that a
release reads the tokens sealed by the one before it (``packed.Packer.upgrades``;
docs/dev/upgrades.md). This module adds each game's current layout to the record:

    python3 -m service.schemas.history          # record the current layouts in layouts.py
    python3 -m service.schemas.history --check  # exit 1 if a current layout is not recorded

``tests/fairplay/test_upgrade.py`` runs the check. A recorded layout the current types cannot read
stops the import of ``service.schemas`` (``packed.LayoutError``), this command included.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .packed import Layout

__all__ = ["recorded_now", "render"]

PATH = Path(__file__).with_name("layouts.py")

_HEAD = '''"""Every layout each game's packed states were ever sealed in, by fingerprint, oldest first.

Written by ``python3 -m service.schemas.history`` (which only adds): do not edit, except to give up
an old layout's tokens on purpose by deleting its entry (docs/dev/upgrades.md). The first two
entries of each game are the fingerprints of the layout as text naming its modules (the installed
``card_referee``, then a checkout's ``service``), as the service computed them until the
fingerprint became the hash of this description (``packed.fingerprint``).
"""

from typing import Any, Final

LAYOUTS: Final[dict[str, dict[str, Any]]] = {
'''


def recorded_now(layouts: Mapping[str, Mapping[str, Layout]]) -> dict[str, dict[str, Layout]]:
    """``layouts`` with every game's current layout added (games in the registry's order, then any
    other game still recorded). A fingerprint recorded with another layout is a ValueError."""
    from . import SCHEMAS

    out = {game: dict(layouts.get(game, {})) for game in SCHEMAS}
    out.update({game: dict(entries) for game, entries in layouts.items() if game not in out})
    for game, codec in SCHEMAS.items():
        packer = codec.packer
        if out[game].setdefault(packer.fingerprint, packer.layout) != packer.layout:
            raise ValueError(f"{game}: fingerprint {packer.fingerprint} is recorded with another layout")
    return out


def _value(layout: Layout, indent: str) -> str:
    """A layout as a Python literal: a record one field a line, anything else on one line."""
    if not isinstance(layout, dict):
        return json.dumps(layout)
    inner = indent + "    "
    fields = "".join(f"{inner}    {json.dumps(name)}: {_value(v, inner + '    ')},\n" for name, v in layout["fields"].items())
    return f'{{\n{inner}"record": {json.dumps(layout["record"])},\n{inner}"fields": {{\n{fields}{inner}}},\n{indent}}}'


def render(layouts: Mapping[str, Mapping[str, Layout]]) -> str:
    """The text of ``layouts.py`` holding ``layouts``."""
    body = "".join(
        f"    {json.dumps(game)}: {{\n"
        + "".join(f"        {json.dumps(fp)}: {_value(layout, '        ')},\n" for fp, layout in entries.items())
        + "    },\n"
        for game, entries in layouts.items()
    )
    return _HEAD + body + "}\n"


def main(argv: list[str]) -> int:  # pragma: no cover - a maintainer's tool, run by its test
    from .contract import write_or_check
    from .layouts import LAYOUTS

    before: dict[str, Any] = LAYOUTS
    return write_or_check(PATH, PATH.read_text(encoding="utf-8"), render(recorded_now(before)), argv,
                          "differs from the record with the current layouts added; run python3 -m service.schemas.history")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main(sys.argv[1:]))
