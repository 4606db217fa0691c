"""A game's moves, declared once: the edge's parser, replay's shape check and the contract's schemas.

Each ``service/schemas/<game_id>.py`` declares its moves as one ``Moves`` value: per move type, its
description and its fields, each field a ``Wire`` (a JSON Schema fragment and the function that
turns a wire value into an engine value). Everything else is compiled from that declaration:

- ``Moves.parse``: a move dataclass, or a ``BadMove`` carrying the first problem in the order the
  game's spec gives (``GameInfo.parse_order``), so the engine can still put ``game_over``,
  ``wrong_phase`` or ``not_your_turn`` first;
- ``Moves.problem``: whether a value is a move of the game as the contract writes it, for
  ``replay``'s split between a malformed log (400 ``invalid_request`` with a JSON Pointer) and a
  well-formed move the rules refuse (the verdict's ``first_illegal``), docs/wire.md "Requests";
- ``Moves.components``: the ``<Game>Move`` schema and every schema it reaches, which
  ``python3 -m service.schemas.contract`` writes into openapi.yaml (a test fails when the file
  differs from them).

The shape check reads the same schemas the contract publishes: only the keywords they use are
understood, and any other is refused when the declaration is compiled, so a schema that grows one
fails at import instead of being skipped. Integers follow the contract's Numbers rule: a JSON
integer, never ``2.0`` (JSON Schema alone would count it) and never ``true``.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from ..cards import Card, Suit
from ..cards.packs import by_text
from ..engines.base import BadMove, BadSetup, GameInfo
from ..engines.claims import valid_at
from .common import REF, camel, parse_deck

__all__ = [
    "ANY_CARD",
    "CLAIM_SEAT",
    "CLAIM_TIMESTAMP",
    "MOVE_TIMESTAMP",
    "SUIT",
    "TIMED_CLAIM",
    "Bad",
    "Field",
    "Move",
    "Moves",
    "Wire",
    "card_of",
    "collect",
    "components",
    "deck",
    "deck_of",
    "next_deal",
    "optional",
    "seat",
    "seat_of",
]

Parse = Callable[..., Any]
"""A wire value in, an engine value out; raises ``Bad(code, detail)``. A ``seated`` wire's parser
also takes the match's player count."""
Problem = tuple[str, str] | None
"""(JSON Pointer suffix, message) of the first fault, or None."""



class Bad(Exception):
    """A field the parser refuses: ``code`` is the problem's code (``invalid_card`` ...)."""

    def __init__(self, code: str, detail: str) -> None:
        super().__init__(detail)
        self.code = code
        self.detail = detail


def _as_is(value: Any) -> Any:
    return value


@dataclass(frozen=True, eq=False)
class Wire:
    """One kind of wire value: its JSON Schema and its parser.

    ``schema`` may hold other ``Wire`` values where the contract refers to them; a named wire is
    its own component (``#/components/schemas/<name>``), an unnamed one is written in place.
    """

    schema: Mapping[str, Any]
    parse: Parse = _as_is
    name: str | None = None
    seated: bool = False
    """``parse(value, players)``: the value's range is the match's (a seat)."""

    def ref(self) -> dict[str, Any]:
        """The schema as another schema holds it: a ``$ref`` for a named wire, else in place."""
        return {"$ref": REF + self.name} if self.name else _resolved(self.schema)


@dataclass(frozen=True)
class Field:
    """A move's field: its wire, whether a move must carry it, and the code when it is missing.

    ``sent=False``: listed moves carry it (a template's ``count``) but a move sent may not
    (``invalid_move``); ``contract_required`` differs from ``required`` where the contract's schema
    also describes listed templates that lack it.
    """

    wire: Wire
    required: bool = True
    missing_code: str = "invalid_move"
    sent: bool = True
    contract_required: bool | None = None
    ignored: bool = False
    """Accepted and dropped: a batch's top-level ``player``."""


def optional(wire: Wire) -> Field:
    return Field(wire, required=False)


@dataclass(frozen=True)
class Move:
    """One move type: its ``type``, the section it is described in, and its fields besides ``type``.

    ``fields`` lists them in wire order; ``player`` and ``at`` take the game's defaults (a seat,
    first; an optional timestamp, last) unless the move declares them (``None``: no such field).
    """

    type: str
    description: str
    fields: Mapping[str, Field | Wire | None] = field(default_factory=dict)
    examples: Sequence[Mapping[str, Any]] = ()
    name: str | None = None
    """The component name's suffix when it is not the type's (``move`` → ``MoveCard``)."""


# --- shared wires ------------------------------------------------------------------------------


def card_of(pack: Iterable[Card]) -> Parse:
    """A move's card field: a string (else invalid_move) naming a card of the pack (else invalid_card)."""
    cards = by_text(tuple(pack))

    def parse(value: Any) -> Card:
        if not isinstance(value, str):
            raise Bad("invalid_move", "a card must be a string such as \"10H\"")
        card = cards.get(value)
        if card is None:
            raise Bad("invalid_card", f"{value!r} is not a card of this game's pack")
        return card

    return parse


def deck_of(pack: Sequence[Card]) -> Parse:
    """A deck field: a list of strings (else invalid_move); not exactly the pack → invalid_deck."""
    def parse(value: Any) -> tuple[Card, ...]:
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise Bad("invalid_move", "deck must be a list of card strings")
        try:
            return parse_deck(value, pack)
        except BadSetup as exc:
            raise Bad("invalid_deck", exc.detail) from None

    return parse


def deck(items: Wire, description: str, parse: Parse, sizes: tuple[int, int]) -> Wire:
    """A ``next_deal`` deck: every card of the pack once, top card first (``sizes``: the packs'
    smallest and largest)."""
    lo, hi = sizes
    schema = {"description": description, "type": "array", "minItems": lo, "maxItems": hi, "uniqueItems": True, "items": items}
    return Wire(schema, parse)


def next_deal(description: str, card: Wire, deck_description: str, parse: Parse, sizes: tuple[int, int]) -> Move:
    """The ``next_deal`` of a game of several deals: the next dealer deals, from ``deck`` (optional:
    a shuffle without it)."""
    return Move("next_deal", description, {"deck": optional(deck(card, deck_description, parse, sizes))})


def _suit(value: Any) -> Suit:
    if not isinstance(value, str) or value not in Suit.__members__:
        raise Bad("invalid_move", f"{value!r} is not a suit (S, H, D, C)")
    return Suit(value)


def _timestamp(value: Any) -> Any:
    if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
        raise Bad("invalid_move", "at must be an integer timestamp in milliseconds")
    return value


def seat_of(value: Any, players: int, what: str = "player") -> int:
    """A seat of the match: a JSON integer 0 .. players-1 (else invalid_player)."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < players:
        raise Bad("invalid_player", f"{what} must be a seat 0..{players - 1}")
    return value


def seat(name: str, schema: Mapping[str, Any]) -> Wire:
    """A game's seat: ``schema`` bounds it for every match of the game; the parser checks it against
    the match's own player count (``invalid_player``)."""
    return Wire(schema, seat_of, name, seated=True)

ANY_CARD: Final = Wire(
    {
        "description": "A card, rank then suit (docs/rules/conventions.md), e.g. `10H`, `QS`.",
        "type": "string",
        "pattern": "^(10|[2-9JQKA])[SHDC]$",
        "examples": ["10H", "QS", "AC"],
    },
    name="Card",
)
SUIT: Final = Wire(
    {"description": "S (spades), H (hearts), D (diamonds), C (clubs).", "type": "string", "enum": ["S", "H", "D", "C"]},
    _suit,
    "Suit",
)
MOVE_TIMESTAMP: Final = Wire(
    {"description": "Client timestamp in milliseconds; games without timing ignore it.", "type": "integer"},
    _timestamp,
    "MoveTimestamp",
)


def _claim_at(value: Any) -> Any:
    if not valid_at(value):
        raise Bad("bad_timestamp", "at must be an integer number of milliseconds >= 0")
    return value


CLAIM_SEAT: Final = seat(
    "ClaimSeat", {"description": "A seat of a 2- to 8-player game.", "type": "integer", "minimum": 0, "maximum": 7}
)
CLAIM_TIMESTAMP: Final = Wire(
    {
        "description": "A client timestamp in integer milliseconds, 0 to 2^53-1 (the service never reads a clock).\n"
        "Required on every claim; optional on a flip. Out of range or not an integer: 422 `bad_timestamp`.\n",
        "type": "integer",
        "minimum": 0,
        "maximum": 9007199254740991,
    },
    _claim_at,
    "ClaimTimestamp",
)
TIMED_CLAIM: Final = Wire(
    {
        "description": "One seat's claim in a batch (`slaps`, `snaps`).",
        "type": "object",
        "required": ["player", "at"],
        "properties": {"player": CLAIM_SEAT, "at": CLAIM_TIMESTAMP},
    },
    name="TimedClaim",
)


# --- one game's moves ----------------------------------------------------------------------------


@dataclass(frozen=True)
class _Type:
    """A move type compiled: its class and its fields (wire name → attribute, field)."""

    cls: type
    fields: Mapping[str, tuple[str, Field]]


class Moves:
    """One game's moves (see the module): ``parse`` for the edge, ``problem`` for replay,
    ``components`` for the contract.

    A ``BadMove`` carries the seat the move names when it could be read, so that sealed mode
    checks the sender's key for that seat; ``seat_read_for`` limits that to the codes listed (the
    claim games: only a flip's ``bad_timestamp``, which the engine ranks after ``not_your_turn``).
    """

    def __init__(
        self,
        game: GameInfo,
        *,
        description: str,
        seat: Wire,
        moves: Sequence[Move],
        at: Field | Wire = MOVE_TIMESTAMP,
        seat_read_for: frozenset[str] | None = None,
    ) -> None:
        if [m.type for m in moves] != list(game.move_types):
            raise ValueError(f"{game.game_id}: declared moves {[m.type for m in moves]} are not {list(game.move_types)}")
        self.game = game
        self.prefix = camel(game.game_id)
        self.description = description
        self.seat = seat
        self.moves = tuple(moves)
        self.default_at = _field(at, required=False)
        self.default_player = Field(seat, missing_code="invalid_player")
        self.seat_read_for = seat_read_for
        self._rank = {code: i for i, code in enumerate(game.parse_order)}
        self._types = {m.type: self._compile(m) for m in moves}
        self._unknown = {"player": ("", self.default_player), "at": ("", self.default_at)}
        """What is still checked of a move whose type is not the game's: its seat and timestamp."""
        self._shape = _Compiler(self.components()).ref(REF + self.name)

    @property
    def name(self) -> str:
        """The contract's name of the game's move schema, ``<Game>Move``."""
        return self.prefix + "Move"

    def _fields(self, move: Move) -> dict[str, Field]:
        declared = dict(move.fields)
        out: dict[str, Field | Wire | None] = {} if "player" in declared else {"player": self.default_player}
        out.update(declared)
        if "at" not in out:
            out["at"] = self.default_at
        return {k: _field(v) for k, v in out.items() if v is not None}

    def _compile(self, move: Move) -> _Type:
        cls = self.game.move_classes[move.type]
        renames = {f.metadata.get("wire_name", f.name): f.name for f in dataclasses.fields(cls)}
        return _Type(cls, {name: ("" if f.ignored else renames.get(name, ""), f) for name, f in self._fields(move).items()})

    # --- the edge's parser ---

    def parse(self, data: Any, players: int) -> Any:
        """A move dataclass, or ``BadMove`` with the first problem in the game's order."""
        if not isinstance(data, Mapping):
            return BadMove("invalid_move", "A move must be a JSON object.")
        problems: list[tuple[str, str]] = []
        kind = data.get("type")
        spec = None
        if not isinstance(kind, str):
            problems.append(("invalid_move", "type is required and must be a string"))
            kind = None
        else:
            spec = self._types.get(kind)
            if spec is None:
                problems.append(("unknown_move_type", f"{kind!r} is not a move type of this game"))
        field_specs = spec.fields if spec is not None else self._unknown
        if spec is not None:
            for name in data:
                if name != "type" and (name not in field_specs or not field_specs[name][1].sent):
                    problems.append(("invalid_move", f"{kind} has no field {name!r}"))
        values: dict[str, Any] = {}
        player = None
        for name, (attr, f) in field_specs.items():
            if name not in data:
                if f.required:
                    problems.append((f.missing_code, f"{kind} needs {name!r}"))
                continue
            value = data[name]
            wire = f.wire
            try:
                parsed = wire.parse(value, players) if wire.seated else wire.parse(value)
            except Bad as bad:
                problems.append((bad.code, bad.detail if name in ("player", "at") else f"{name}: {bad.detail}"))
                continue
            if name == "player" and wire.seated:
                player = parsed
            if attr:
                values[attr] = parsed
        if problems:
            rank, last = self._rank.get, len(self._rank)
            code, detail = min(problems, key=lambda p: rank(p[0], last))
            if self.seat_read_for is not None and code not in self.seat_read_for:
                player = None
            return BadMove(code, detail, kind, player)
        return spec.cls(**values)  # type: ignore[union-attr]

    # --- replay's shape check ---

    def problem(self, value: Any) -> Problem:
        """None when ``value`` is a move of the game as the contract writes it; else (pointer within
        it, message)."""
        return self._shape(value)

    # --- the contract ---

    def components(self) -> dict[str, Any]:
        """The game's ``<Game>Move`` schema and every schema it reaches, by name, in the order they
        are first reached."""
        variants = {self.prefix + (m.name or camel(m.type)): m for m in self.moves}
        top = Wire(
            {
                "description": self.description,
                "oneOf": [{"$ref": REF + n} for n in variants],
                "discriminator": {"propertyName": "type", "mapping": {m.type: REF + n for n, m in variants.items()}},
            },
            name=self.name,
        )
        out: dict[str, Any] = {}
        collect(top, out)
        for name, move in variants.items():
            collect(Wire(self._variant_schema(move), name=name), out)
        return out

    def _variant_schema(self, move: Move) -> dict[str, Any]:
        fields_ = self._fields(move)
        required = ["type"] + [n for n, f in fields_.items() if (f.required if f.contract_required is None else f.contract_required)]
        schema: dict[str, Any] = {
            "description": move.description,
            "type": "object",
            "required": required,
            "properties": {"type": {"const": move.type, "type": "string"}, **{n: f.wire for n, f in fields_.items()}},
        }
        if move.examples:
            schema["examples"] = [dict(e) for e in move.examples]
        return schema


def _field(value: Field | Wire, required: bool = True) -> Field:
    return value if isinstance(value, Field) else Field(value, required=required)


def _resolved(schema: Any) -> Any:
    """``schema`` with each ``Wire`` inside it written as its reference."""
    if isinstance(schema, Wire):
        return schema.ref()
    if isinstance(schema, Mapping):  # ``"$ref": wire`` names a wire beside other keywords
        return {k: REF + v.name if k == "$ref" and isinstance(v, Wire) and v.name else _resolved(v) for k, v in schema.items()}
    if isinstance(schema, (list, tuple)):
        return [_resolved(v) for v in schema]
    return schema


def _wires(schema: Any) -> Iterator[Wire]:
    if isinstance(schema, Wire):
        yield schema
    elif isinstance(schema, Mapping):
        for v in schema.values():
            yield from _wires(v)
    elif isinstance(schema, (list, tuple)):
        for v in schema:
            yield from _wires(v)


def collect(wire: Wire, out: dict[str, Any]) -> None:
    """Add the named ``wire`` and every named wire its schema reaches to ``out``."""
    assert wire.name is not None
    known = out.get(wire.name)
    if known is not None:
        if known != _resolved(wire.schema):
            raise ValueError(f"two different schemas are named {wire.name}")
        return
    out[wire.name] = _resolved(wire.schema)
    for inner in _wires(wire.schema):
        if inner.name is not None:
            collect(inner, out)
        else:
            for deeper in _wires(inner.schema):
                if deeper.name is not None:
                    collect(deeper, out)


def components(games: Iterable[Moves]) -> dict[str, Any]:
    """Every game's move schemas together (shared ones once)."""
    out: dict[str, Any] = {}
    for moves in games:
        for name, schema in moves.components().items():
            if out.setdefault(name, schema) != schema:
                raise ValueError(f"two different schemas are named {name}")
    return out


# --- the shape check: the contract's move schemas compiled to plain functions ---------------------

Check = Callable[[Any], Problem]

ANNOTATIONS: Final = frozenset({"description", "examples", "default", "title", "format"})
_KNOWN: Final = frozenset({
    "$ref", "type", "const", "enum", "minimum", "maximum", "pattern", "minLength", "maxLength", "required", "properties",
    "additionalProperties", "items", "minItems", "maxItems", "uniqueItems", "anyOf", "oneOf", "discriminator",
})


def _is_type(value: Any, kind: str) -> bool:
    if kind == "integer":
        return type(value) is int
    if kind == "number":
        return type(value) in (int, float)
    if kind == "string":
        return isinstance(value, str)
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "object":
        return isinstance(value, dict)
    if kind == "array":
        return isinstance(value, list)
    if kind == "null":
        return value is None
    raise ValueError(f"unknown JSON type {kind!r}")


def _same(a: Any, b: Any) -> bool:
    """JSON equality (``true`` is not ``1``)."""
    return type(a) is type(b) and a == b if not isinstance(a, (dict, list)) else _canon(a) == _canon(b)


def _canon(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def _pointer(key: str | int) -> str:
    return "/" + str(key).replace("~", "~0").replace("/", "~1")


class _Compiler:
    def __init__(self, defs: Mapping[str, Any]) -> None:
        self.defs = defs
        self.done: dict[str, Check] = {}
        self.busy: set[str] = set()

    def ref(self, ref: str) -> Check:
        name = ref.rsplit("/", 1)[-1]
        if not ref.startswith(REF) or name not in self.defs:
            raise ValueError(f"unresolvable $ref {ref!r}")
        if name in self.busy:
            raise ValueError(f"recursive schema {name}: not a move shape")
        if name not in self.done:
            self.busy.add(name)
            self.done[name] = self.compile(self.defs[name])
            self.busy.discard(name)
        return self.done[name]

    def compile(self, schema: Mapping[str, Any]) -> Check:
        unknown = set(schema) - _KNOWN - ANNOTATIONS
        if unknown:
            raise ValueError(f"keywords this checker does not know: {sorted(unknown)}")
        checks: list[Check] = []
        if "$ref" in schema:
            checks.append(self.ref(schema["$ref"]))
        if "type" in schema:
            kinds = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
            for kind in kinds:
                _is_type(None, kind)  # an unknown type name fails here, at compile time
            wrong = ("", f"must be of type {' or '.join(kinds)}")
            if kinds == ["integer"]:
                checks.append(lambda v: None if type(v) is int else wrong)
            elif kinds == ["string"]:
                checks.append(lambda v: None if type(v) is str else wrong)
            else:
                checks.append(lambda v: None if any(_is_type(v, k) for k in kinds) else wrong)
        if "const" in schema:
            const = schema["const"]
            checks.append(lambda v: None if _same(v, const) else ("", f"must be {json.dumps(const)}"))
        if "enum" in schema:
            options = list(schema["enum"])
            checks.append(lambda v: None if any(_same(v, o) for o in options) else ("", f"must be one of {json.dumps(options)[:200]}"))
        if "minimum" in schema:
            low = schema["minimum"]
            checks.append(lambda v: ("", f"must be at least {low}") if type(v) in (int, float) and v < low else None)
        if "maximum" in schema:
            high = schema["maximum"]
            checks.append(lambda v: ("", f"must be at most {high}") if type(v) in (int, float) and v > high else None)
        if "pattern" in schema:
            pattern = re.compile(schema["pattern"])
            checks.append(lambda v: ("", f"must match {pattern.pattern}") if isinstance(v, str) and not pattern.search(v) else None)
        if "minLength" in schema or "maxLength" in schema:
            lo, hi = schema.get("minLength", 0), schema.get("maxLength")
            checks.append(lambda v: ("", "has the wrong length") if isinstance(v, str) and (
                len(v) < lo or (hi is not None and len(v) > hi)) else None)
        if {"required", "properties", "additionalProperties"} & set(schema):
            checks.append(self._object(schema))
        if {"items", "minItems", "maxItems", "uniqueItems"} & set(schema):
            checks.append(self._array(schema))
        if "anyOf" in schema:
            branches = [self.compile(b) for b in schema["anyOf"]]
            checks.append(lambda v: None if any(b(v) is None for b in branches) else ("", "matches none of the allowed forms"))
        if "oneOf" in schema:
            checks.append(self._one_of(schema))

        if len(checks) == 1:
            return checks[0]

        def check(value: Any) -> Problem:
            for one in checks:
                problem = one(value)
                if problem is not None:
                    return problem
            return None

        return check

    def _object(self, schema: Mapping[str, Any]) -> Check:
        required = list(schema.get("required", ()))
        props = {name: self.compile(sub) for name, sub in schema.get("properties", {}).items()}
        extra = schema.get("additionalProperties", True)
        extra_check = self.compile(extra) if isinstance(extra, dict) else None

        def check(value: Any) -> Problem:
            if not isinstance(value, dict):
                return None
            for name in required:
                if name not in value:
                    return "", f"needs {name!r}"
            for name, member in value.items():
                sub = props.get(name)
                if sub is None:
                    if extra is False:
                        return _pointer(name), "is not a member of this move"
                    sub = extra_check
                if sub is not None:
                    problem = sub(member)
                    if problem is not None:
                        return _pointer(name) + problem[0], problem[1]
            return None

        return check

    def _array(self, schema: Mapping[str, Any]) -> Check:
        items = self.compile(schema["items"]) if "items" in schema else None
        lo, hi, unique = schema.get("minItems", 0), schema.get("maxItems"), schema.get("uniqueItems", False)

        def check(value: Any) -> Problem:
            if not isinstance(value, list):
                return None
            if len(value) < lo or (hi is not None and len(value) > hi):
                return "", f"must hold {lo} to {hi if hi is not None else 'any number of'} items"
            if unique and len({_canon(v) for v in value}) != len(value):
                return "", "must not repeat an item"
            if items is not None:
                for index, item in enumerate(value):
                    problem = items(item)
                    if problem is not None:
                        return _pointer(index) + problem[0], problem[1]
            return None

        return check

    def _one_of(self, schema: Mapping[str, Any]) -> Check:
        branches = [self.compile(b) for b in schema["oneOf"]]

        def exactly_one(value: Any) -> Problem:
            matched = sum(b(value) is None for b in branches)
            return None if matched == 1 else ("", "must match exactly one of the allowed forms")

        mapping = schema.get("discriminator", {}).get("mapping")
        if mapping:  # each branch has its own ``const`` tag, so at most one can match: dispatch on it
            prop = schema["discriminator"]["propertyName"]
            by_tag = {tag: self.ref(ref) for tag, ref in mapping.items()}

            def dispatch(value: Any) -> Problem:
                if not isinstance(value, dict):
                    return None if exactly_one(value) is None else ("", "must be a JSON object: a move")
                tag = value.get(prop)
                branch = by_tag.get(tag) if isinstance(tag, str) else None
                if branch is None:
                    return _pointer(prop), f"must be one of {json.dumps(sorted(by_tag))}"
                return branch(value)

            return dispatch
        return exactly_one
