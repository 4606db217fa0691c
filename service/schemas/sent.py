"""What a game sends and never loads, declared once: its views, events and scores.

A game's ``<Game>View``, ``<Game>Event`` (one schema per event type) and ``<Game>Scores`` are
declared in ``service/schemas/<game_id>.py`` with the helpers below and handed to its
``Contract``; ``python3 -m service.schemas.contract`` writes them into openapi.yaml, and the suite
checks every view, event and score the engines produce against them (every response is validated,
and ``tests/test_sent_contract.py`` plays random matches of every game through them).

A view is mostly the state's public members: ``View.member`` takes a member's schema from the
state's own declaration (``loaded.Loaded``, which writes it from the state loader), so a member
the state and its views share is declared once; a view's own members (a seat's ``hand``, the
others' hand counts) are declared here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from .common import REF, camel
from .moves import Moves, Wire

__all__ = ["Event", "View", "described", "events", "legal_moves", "nullable", "obj", "seat_views"]

NULL: Final = {"type": "null"}


def nullable(schema: Any) -> dict[str, Any]:
    """``schema`` or ``null``."""
    return {"anyOf": [schema, NULL]}


def described(text: str, schema: Any) -> dict[str, Any]:
    """``schema`` with a description of its own (a wire's reference keeps its name)."""
    base = {"$ref": schema} if isinstance(schema, Wire) else dict(schema)
    base.pop("description", None)
    return {"description": text, **base}


def obj(members: Mapping[str, Any], *, optional: Sequence[str] = (), description: str | None = None) -> dict[str, Any]:
    """An object of ``members`` (in wire order), every one required but those ``optional``."""
    unknown = set(optional) - set(members)
    if unknown:
        raise ValueError(f"optional members {sorted(unknown)} are not members")
    out: dict[str, Any] = {"description": description} if description else {}
    out["type"] = "object"
    required = [name for name in members if name not in optional]
    if required:
        out["required"] = required
    out["properties"] = dict(members)
    return out


@dataclass(frozen=True)
class Event:
    """One event type: its ``type``, its members besides ``type`` (wire order), those that may be
    absent, its description, and its component name's middle part when it is not the type's
    (``turned_jack`` → ``SevenUpPointEvent``: ``name="Point"``)."""

    type: str
    members: Mapping[str, Any] = field(default_factory=dict)
    optional: Sequence[str] = ()
    description: str | None = None
    name: str | None = None


def events(prefix: str, title: str, declared: Sequence[Event]) -> Wire:
    """A game's ``<Game>Event``: one of its event types by ``type``, each its own
    ``<Game><Type>Event`` component."""
    by_type: dict[str, Wire] = {}
    for e in declared:
        if e.type in by_type:
            raise ValueError(f"{prefix}: the event type {e.type} is declared twice")
        schema = obj({"type": {"const": e.type, "type": "string"}, **e.members}, optional=e.optional, description=e.description)
        by_type[e.type] = Wire(schema, name=prefix + (e.name or camel(e.type)) + "Event")
    return Wire(
        {
            "description": f"Something a {title} move caused (docs/wire.md).",
            "oneOf": list(by_type.values()),
            "discriminator": {"propertyName": "type", "mapping": {t: REF + str(w.name) for t, w in by_type.items()}},
        },
        name=prefix + "Event",
    )


class View:
    """Members of a game's views taken from its state's declaration (``state``: the ``<Game>State``
    wire ``loaded.Loaded`` writes)."""

    def __init__(self, state: Wire) -> None:
        self._members: Mapping[str, Any] = state.schema["properties"]
        self._named: dict[str, Wire] = {}
        _named(state, self._named)

    def part(self, name: str) -> Wire:
        """A named component of the state's declaration (``SchnapsenCardPair``), for the events and
        scores that carry one."""
        return self._named[name]

    def member(self, name: str, description: str | None = None) -> Any:
        """The state member ``name``'s schema; with ``description`` in place of the state's."""
        schema = self._members[name]
        return schema if description is None else described(description, schema)

    def members(self, *names: str) -> dict[str, Any]:
        """Several state members as they are, by name, in the order given."""
        return {name: self._members[name] for name in names}


def _named(node: Any, out: dict[str, Wire]) -> None:
    """Every named wire ``node`` reaches, by name."""
    if isinstance(node, Wire):
        if node.name is not None:
            if node.name in out:
                return
            out[node.name] = node
        _named(node.schema, out)
    elif isinstance(node, Mapping):
        for value in node.values():
            _named(value, out)
    elif isinstance(node, (list, tuple)):
        for value in node:
            _named(value, out)


def legal_moves(moves: Moves) -> dict[str, Any]:
    """A seat's view's ``legal_moves``: its own moves, there only when it is to move."""
    return {"description": "Present only when this seat is to move.", "type": "array", "items": {"$ref": REF + moves.name}}


def seat_views(
    moves: Moves,
    title: str,
    head: Mapping[str, Any],
    *,
    seat: Wire,
    own: Mapping[str, Any],
    public: Mapping[str, Any],
    description: str,
    optional: Sequence[str] = (),
    union: str = "oneOf",
) -> Wire:
    """``<Game>View`` of a game whose seat view and public view differ: ``<Game>SeatView`` (the
    ``head`` members, ``seat``, the seat's ``own`` members, ``legal_moves``) or ``<Game>PublicView``
    (the ``head``, ``seat`` null, the ``public`` members); ``optional`` names members of either
    that may be absent."""
    prefix = moves.prefix
    text = f"The members every {title} view carries (the public parts of the state)."
    seat_view = obj({**head, "seat": seat, **own, "legal_moves": legal_moves(moves)}, optional=(*optional, "legal_moves"),
                    description=text)
    public_view = obj({**head, "seat": {"type": "null"}, **public},
                      optional=[name for name in optional if name in head or name in public], description=text)
    return Wire(
        {"description": description, union: [Wire(seat_view, name=prefix + "SeatView"), Wire(public_view, name=prefix + "PublicView")]},
        name=prefix + "View",
    )
