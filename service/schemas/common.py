"""Edge machinery shared by every game: request envelopes, the base of every state schema, options,
decks, and wire output.

Card strings become ``Card`` values at the edge and nowhere else (here, in ``fields.py`` and in
``moves.py``); engines receive only well-formed data. The field types are in ``fields.py``, the
move declaration in ``moves.py``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from enum import Enum
from typing import Any, Final

from marshmallow import RAISE, Schema, ValidationError, fields, validate, validates_schema

from ..cards import Card
from ..cards.packs import DeckProblem, by_text, check_deck
from ..cards.shuffle import MAX_SEED
from ..engines.base import BadSetup, GameInfo, InvalidState
from .cardtext import CARD_TEXT, card_text
from .fields import FastSchema, ObjectField, StrictBool, StrictInt, StrictSchema, StrictString

REF: Final = "#/components/schemas/"
"""Where openapi.yaml's schemas are: ``REF + name`` refers to one."""


def camel(text: str) -> str:
    """A game id or a type as openapi.yaml's component names spell it: ``seven_up`` → ``SevenUp``."""
    return "".join(part.capitalize() for part in text.split("_"))


__all__ = [
    "MAX_MOVES",
    "REF",
    "MoveRequest",
    "NewRequest",
    "OptionsField",
    "ReplayRequest",
    "StateRequest",
    "camel",
    "flatten_errors",
    "load_options",
    "options_schema",
    "parse_deck",
    "state_schema",
    "to_wire",
]

MAX_MOVES: Final = 10_000
MAX_INT: Final = 2**53 - 1  # I-JSON (RFC 7493): the largest integer every JSON client reads exactly


# --- wire output ----------------------------------------------------------------------------


_WirePlan = tuple[str | None, tuple[tuple[str, str, bool], ...]]
_WIRE_PLANS: dict[type, _WirePlan] = {}


def _wire_plan(cls: type) -> _WirePlan:
    """A dataclass's wire form, worked out once per class: its move ``TYPE`` (or None) and, per
    field sent, (attribute, wire name, left out when None). ``metadata={"wire": False}`` keeps a
    field off the wire; ``"wire_name"`` renames it (a wire name may be a Python keyword)."""
    known = _WIRE_PLANS.get(cls)
    if known is not None:
        return known
    move_type = getattr(cls, "TYPE", None)
    plan = tuple(
        (f.name, f.metadata.get("wire_name", f.name), move_type is not None and f.default is None)
        for f in dataclasses.fields(cls)
        if f.metadata.get("wire") is not False
    )
    _WIRE_PLANS[cls] = (move_type, plan)
    return move_type, plan


def wire_record(game_id: str, rules_version: str, state: Any) -> dict[str, Any]:
    """The start of every full state's wire form: ``game``, ``rules_version``, then each field."""
    out: dict[str, Any] = {"game": game_id, "rules_version": rules_version}
    out.update(zip(state._fields, [v if type(v) in _PLAIN else to_wire(v) for v in state]))
    return out


class OptionsField(fields.Field[Any]):
    """A state's ``options``: loaded by the game's option ``schema`` into ``options_cls``; a bad one
    is a state problem at ``options`` (its detail names the option)."""

    def __init__(self, schema: Schema, options_cls: type, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._schema, self._cls = schema, options_cls

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> Any:
        if not isinstance(value, Mapping):
            raise ValidationError("options must be an object")
        try:
            return load_options(self._schema, self._cls, value)
        except BadSetup as exc:
            raise ValidationError(exc.detail) from None


_SEED_TEXT: Final = "The match's seed, kept so that later deals stay reproducible; `null` if none."


def state_schema(
    game: GameInfo, options: Schema, options_cls: type, *, seed: bool = True, seed_text: str = _SEED_TEXT
) -> type[StrictSchema]:
    """The base of a game's state schema: the members every full state opens with (``game``,
    ``rules_version``, ``seq``, ``seed`` where the game keeps one, ``options``). A game's
    ``StateSchema`` subclasses it, declares its own members, and builds its State with
    ``**self.head(d)`` in its ``post_load``. ``seed_text`` is the contract's description of
    ``seed``, in the game's words."""
    prefix = camel(game.game_id)
    declared: dict[str, fields.Field[Any]] = {
        "game": StrictString(validate=validate.Equal(game.game_id)),
        "rules_version": StrictString(
            validate=validate.Equal(game.rules_version), metadata={"contract": {"$ref": REF + prefix + "RulesVersion"}}
        ),
        "seq": StrictInt(validate=validate.Range(0, 2**31), metadata={"description": "Moves applied so far.", "advances": True}),
    }
    if seed:
        declared["seed"] = StrictInt(
            allow_none=True,
            validate=validate.Range(0, MAX_SEED),
            metadata={
                "description": seed_text,
                "contract": {"$ref": REF + "Seed"},
            },
        )
    declared["options"] = OptionsField(options, options_cls)

    class Head(StrictSchema):
        def head(self, d: dict[str, Any]) -> dict[str, Any]:
            """Pops the opening members from loaded ``d``: the State's ``options``, ``seq`` (and
            ``seed``), defaults filled in; ``game`` and ``rules_version`` are dropped."""
            d.pop("game", None)
            d.pop("rules_version", None)
            out = {"options": d.pop("options") if "options" in d else options_cls(), "seq": d.pop("seq", 0)}
            if seed:
                out["seed"] = d.pop("seed", None)
            return out

    return type(f"{game.game_id}.StateHead", (Head,), dict(declared))


def load_state_with(schema: Schema, data: Any) -> Any:
    """A state from its wire form through a game's state ``schema``; a body that is not an object,
    or that the schema refuses, raises InvalidState with field paths (shape only: the engine's
    ``check_state`` judges consistency)."""
    if not isinstance(data, Mapping):
        raise InvalidState({"state": ["must be an object"]})
    try:
        return schema.load(data)
    except ValidationError as err:
        raise InvalidState(flatten_errors(err.messages)) from None


# Wire output is the hottest code of a request after the engine: every state, view, move list and
# event goes through ``to_wire``. It picks an encoder by the value's exact type, worked out once
# per type with the rules below (in this order), so each value costs one dictionary look-up.
#   Card -> its text; None, bool, int, str, float -> itself; Enum -> its value; other str, int,
#   float subclasses -> themselves; records (NamedTuple) -> objects; tuple, list, set, frozenset
#   -> arrays; mappings -> objects with text keys; dataclass instances -> objects (see _wire_plan).
_Encoder = Callable[[Any], Any]
_ENCODERS: dict[type, _Encoder] = {}


def _identity(obj: Any) -> Any:
    return obj


def _enum(kind: type[Enum]) -> _Encoder:
    values = {id(member): member.value for member in kind}  # members are singletons

    def encode(obj: Any) -> Any:
        value = values.get(id(obj), values)
        return obj.value if value is values else value

    return encode


_PLAIN: Final = frozenset({type(None), bool, int, str, float})
"""Types that are their own wire form: containers copy them without a call."""


_CARD_TEXT_OF: Final = CARD_TEXT.get


def _sequence(obj: Any) -> list[Any]:
    text, plain = _CARD_TEXT_OF, _PLAIN
    return [text(id(v)) or (v if type(v) in plain else to_wire(v)) for v in obj]  # cards and numbers without a call


def _mapping(obj: Any) -> dict[str, Any]:
    plain = _PLAIN
    return {k if type(k) is str else str(k): v if type(v) in plain else to_wire(v) for k, v in obj.items()}


def _record(fields_: tuple[str, ...]) -> _Encoder:
    def encode(obj: Any) -> dict[str, Any]:
        text, plain = _CARD_TEXT_OF, _PLAIN
        return dict(zip(fields_, [text(id(v)) or (v if type(v) in plain else to_wire(v)) for v in obj]))

    return encode


def _dataclass(cls: type) -> _Encoder:
    move_type, plan = _wire_plan(cls)
    plain = _PLAIN

    def encode(obj: Any) -> dict[str, Any]:
        out = {} if move_type is None else {"type": move_type}
        for attr, name, optional in plan:
            value = getattr(obj, attr)
            if value is None and optional:
                continue  # optional move fields (a next_deal template's deck) are left out
            out[name] = value if type(value) in plain else to_wire(value)
        return out

    return encode


def _no_wire_form(obj: Any) -> Any:
    raise TypeError(f"no wire form for {type(obj).__name__}")


def _encoder_for(kind: type) -> _Encoder:
    if kind is Card:
        return card_text
    if kind is type(None) or kind is int or kind is bool or kind is str or kind is float:
        return _identity
    if issubclass(kind, Enum):
        return _enum(kind)
    if issubclass(kind, (str, int, float)):
        return _identity
    if issubclass(kind, tuple) and hasattr(kind, "_fields"):
        return _record(tuple(kind._fields))
    if issubclass(kind, (tuple, list, frozenset, set)):
        return _sequence
    if issubclass(kind, Mapping):
        return _mapping
    if dataclasses.is_dataclass(kind) and not issubclass(kind, type):
        return _dataclass(kind)
    return _no_wire_form


def to_wire(obj: Any) -> Any:
    """JSON-ready form of engine values: cards as strings, enums as values, records as objects."""
    kind = type(obj)
    if kind is tuple or kind is list:  # the commonest containers (``_sequence``), without a look-up and a call
        text, plain = _CARD_TEXT_OF, _PLAIN
        return [text(id(v)) or (v if type(v) in plain else to_wire(v)) for v in obj]
    encode = _ENCODERS.get(kind)
    if encode is None:
        encode = _ENCODERS.setdefault(kind, _encoder_for(kind))
    return encode(obj)


def flatten_errors(messages: Any, prefix: str = "") -> dict[str, list[str]]:
    """marshmallow's nested messages as ``{"hands.0.2": ["Not a card ..."]}``."""
    out: dict[str, list[str]] = {}
    if isinstance(messages, Mapping):
        for key, value in messages.items():
            path = f"{prefix}.{key}" if prefix else str(key)
            if key == "_schema":
                path = prefix or "state"
            out.update(flatten_errors(value, path))
    elif isinstance(messages, list) and all(isinstance(m, str) for m in messages):
        out.setdefault(prefix or "state", []).extend(messages)
    elif isinstance(messages, list):
        for m in messages:
            out.update(flatten_errors(m, prefix))
    else:
        out.setdefault(prefix or "state", []).append(str(messages))
    return out


# --- request envelopes (400 invalid_request when not of this shape) --------------------------


class _Request(FastSchema):
    class Meta:
        unknown = RAISE


class NewRequest(_Request):
    """``POST …/new``."""

    players = StrictInt(validate=validate.Range(1, 16))
    options = ObjectField()
    deck = fields.List(fields.Raw(), validate=validate.Length(max=1024))
    seed = StrictInt(validate=validate.Range(0, MAX_SEED))


class StateRequest(_Request):
    """``POST …/state``: a plain state (open mode) or a token (sealed mode)."""

    state = ObjectField()
    token = StrictString(validate=validate.Length(min=1, max=512 * 1024))
    expected_seq = StrictInt(validate=validate.Range(0, MAX_INT))

    @validates_schema
    def _one_source(self, data: Mapping[str, Any], **kwargs: Any) -> None:
        if ("state" in data) == ("token" in data):
            raise ValidationError("Send exactly one of state and token.", "state")


class MoveRequest(StateRequest):
    """``POST …/moves`` and ``…/check``."""

    move = ObjectField(required=True)  # everything inside it is the game's to judge (422)


class ReplayRequest(NewRequest):
    """``POST …/replay``: a game's setup (as for ``new``) and its move log."""

    moves = fields.List(fields.Raw(), required=True, validate=validate.Length(max=MAX_MOVES))

    @validates_schema
    def _fixed(self, data: Mapping[str, Any], **kwargs: Any) -> None:
        if "deck" not in data and "seed" not in data:
            raise ValidationError("A replay needs deck or seed.", "deck")


# --- options --------------------------------------------------------------------------------


def options_schema(options_cls: type, info: Mapping[str, Mapping[str, Any]]) -> Schema:
    """A marshmallow schema for a game's Options dataclass, from its option table."""
    declared: dict[str, fields.Field[Any]] = {}
    defaults = {f.name: f.default for f in dataclasses.fields(options_cls)}
    for name, meta in info.items():
        kind = meta["type"]
        if kind == "boolean":
            declared[name] = StrictBool(load_default=defaults[name])
        elif kind == "integer":
            declared[name] = StrictInt(
                load_default=defaults[name],
                allow_none=bool(meta.get("nullable")) or defaults[name] is None,  # the table's null: "no limit"
                validate=validate.Range(meta.get("minimum"), meta.get("maximum")),
            )
        elif kind == "string":
            declared[name] = StrictString(load_default=defaults[name], validate=validate.OneOf(meta["enum"]))
        else:  # pragma: no cover - a table error, caught by the catalogue test
            raise ValueError(f"unknown option type {kind}")
    schema_cls = FastSchema.from_dict(declared, name=f"{options_cls.__module__}.OptionsSchema")
    return schema_cls(unknown=RAISE)


def load_options(schema: Schema, options_cls: type, data: Any) -> Any:
    """Options from wire form; raises BadSetup("invalid_option") naming the option."""
    if data is None:
        data = {}
    if not isinstance(data, Mapping):
        raise BadSetup("invalid_option", "options must be an object")
    try:
        loaded = schema.load(data)
    except ValidationError as err:
        problems = flatten_errors(err.messages)
        name, msgs = next(iter(problems.items()))
        raise BadSetup("invalid_option", f"option {name}: {msgs[0]}") from None
    return options_cls(**loaded)


def parse_deck(raw: Any, pack: Sequence[Card]) -> tuple[Card, ...]:
    """A deck (top first) of card strings; raises BadSetup("invalid_deck") if it is not ``pack``."""
    if not isinstance(raw, list):
        raise BadSetup("invalid_deck", "deck must be a list of card strings")
    cards = by_text(tuple(pack))
    out = []
    for i, text in enumerate(raw):
        card = cards.get(text) if isinstance(text, str) else None
        if card is None:
            raise BadSetup("invalid_deck", f"deck[{i}] = {text!r} is not a card of this game's pack")
        out.append(card)
    try:
        check_deck(out, pack)
    except DeckProblem as exc:
        raise BadSetup("invalid_deck", str(exc)) from None
    return tuple(out)
