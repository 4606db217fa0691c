"""The edge's declaration vocabulary: field types, and a schema base whose load is fast.

A game's wire state is declared once, as a marshmallow schema built from these field types (the
edge's chosen parser). ``FastSchema.load`` runs a *plan* compiled, once per schema instance, from
that same declaration: the schema's fields (each edge field type below gives its own fast path,
``fast()``), their validators, ``required``, ``allow_none``, ``load_default``, ``data_key``,
``unknown`` and its ``validates_schema`` and ``post_load`` hooks. Per-field machinery (error
stores, getters, keyword plumbing, one validator object call per check) is most of
``Schema.load``'s time; the plan makes the same checks in plain Python over plain values:

- if the plan accepts the input, its result is the one marshmallow would return (the same hooks
  build the same objects);
- if anything is refused, or anything is unusual (a type the plan was not compiled for, a tuple
  where JSON gives lists, an exception of any kind), the plan gives up and ``Schema.load`` runs as
  always, so every refusal carries marshmallow's own messages and field paths.

Nothing here names a field of any game. Field types without ``fast()`` are loaded by the field
itself (``field.deserialize``); a schema using a feature the plan does not model (``pre_load``,
``validates``, partial loading, hooks over collections, ``pass_original``) has no plan and always
loads through marshmallow. ``tests/test_fastload.py`` loads valid and mutated states of every game
both ways and requires the same results and the same errors.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, Final, Literal, cast

from marshmallow import EXCLUDE, INCLUDE, RAISE, Schema, ValidationError, fields, missing, validate

from ..cards import Card, Suit
from ..cards.packs import by_text

__all__ = [
    "CardField",
    "CardList",
    "FastSchema",
    "IntList",
    "ObjectField",
    "SeatField",
    "StrictBool",
    "StrictInt",
    "StrictSchema",
    "StrictString",
    "SuitField",
    "has_plan",
]


Conv = Callable[[Any], Any]
"""A compiled field: a wire value (never None) in, the loaded value out; raises to give up."""


class _GiveUp(Exception):
    """The plan does not accept this input: marshmallow decides (and words the refusal)."""


_GIVE_UP: Final = _GiveUp()
_TAGS: Final = ("pre_load", "post_load", "validates", "validates_schema", "pre_dump", "post_dump")


def _give_up(*_: Any) -> Any:
    raise _GIVE_UP


# --- validators -----------------------------------------------------------------------------


def _check_of(validator: Any) -> Callable[[Any], bool]:
    """A predicate true exactly when ``validator`` accepts the value (marshmallow's ``And`` rules)."""
    kind = type(validator)
    if kind is validate.Range:
        lo, hi = validator.min, validator.max
        lo_in, hi_in = validator.min_inclusive, validator.max_inclusive
        if lo is not None and hi is not None and lo_in and hi_in:
            return lambda v: lo <= v <= hi
        return lambda v: not (
            (lo is not None and (v < lo if lo_in else v <= lo)) or (hi is not None and (v > hi if hi_in else v >= hi))
        )
    if kind is validate.OneOf:
        choices = validator.choices
        return lambda v: v in choices
    if kind is validate.Equal:
        comparable = validator.comparable
        return lambda v: not v != comparable  # noqa: SIM202 - the validator's own test is `!=`
    if kind is validate.Length:
        equal, lo, hi = validator.equal, validator.min, validator.max
        if equal is not None:
            return lambda v: len(v) == equal
        return lambda v: not ((lo is not None and len(v) < lo) or (hi is not None and len(v) > hi))
    plain = not isinstance(validator, validate.Validator)

    def call(v: Any) -> bool:
        try:
            result = validator(v)
        except ValidationError:
            return False
        return not (plain and result is False)  # a plain function may refuse by returning False

    return call


def _validated(conv: Conv, field: fields.Field[Any]) -> Conv:
    """``conv`` followed by the field's validators, all of which must accept."""
    checks = [_check_of(v) for v in field.validators]
    if not checks:
        return conv
    if len(checks) == 1:
        (check,) = checks

        def one(value: Any) -> Any:
            out = conv(value)
            if not check(out):
                raise _GIVE_UP
            return out

        return one

    def every(value: Any) -> Any:
        out = conv(value)
        for c in checks:
            if not c(out):
                raise _GIVE_UP
        return out

    return every


# --- compiling a field ----------------------------------------------------------------------


def _nullable(conv: Conv, field: fields.Field[Any]) -> Conv:
    """``conv`` for a value that may be None (a list entry): None passes only where allowed."""
    if field.allow_none:
        return lambda v: None if v is None else conv(v)

    def strict(value: Any) -> Any:
        if value is None:
            raise _GIVE_UP
        return conv(value)

    return strict


def _plain_field(field: fields.Field[Any]) -> bool:
    """No per-field hooks (marshmallow 4's field-level pre/post_load) to model."""
    return not getattr(field, "pre_load", None) and not getattr(field, "post_load", None)


def _compile_field(field: fields.Field[Any]) -> Conv | None:
    """The field's loader for a non-None value, or None when only the field itself can load it."""
    if not _plain_field(field):
        return None
    own = getattr(type(field), "fast", None)  # the edge's field types (below) carry their own
    conv: Conv | None
    if own is not None:
        conv = own(field)
    elif type(field) is fields.Raw:
        conv = _as_is
    elif type(field) is fields.Nested:
        conv = _nested(field)
    elif type(field) is fields.List:
        conv = _list(field)
    else:
        conv = None
    if conv is None:
        return None
    return _validated(conv, field)


def _as_is(v: Any) -> Any:
    return v


def _exact(kind: type) -> Conv:
    """A JSON value of exactly ``kind`` (no bool for int), passed on as is."""

    def conv(v: Any) -> Any:
        if type(v) is not kind:
            raise _GIVE_UP
        return v

    return conv


def _list(field: fields.List[Any]) -> Conv | None:
    inner = field.inner
    inner_conv = _compile_field(inner)
    if inner_conv is None:
        return None
    each = _nullable(inner_conv, inner)

    def conv(v: Any) -> Any:
        if type(v) is not list:
            raise _GIVE_UP
        return [each(x) for x in v]

    return conv


def _nested(field: fields.Nested) -> Conv | None:
    if field.many or field.unknown is not None or field.only is not None or field.exclude:
        return None
    plan = _plan_of(field.schema)
    return None if plan is None else plan


# --- the edge's field types, each with its fast path ---------------------------------------


class StrictInt(fields.Integer):
    """An integer that is really a JSON integer: no bools, floats or numeric strings."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("strict", True)
        super().__init__(**kwargs)

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.make_error("invalid")
        return int(value)

    def fast(self) -> Conv:
        return _exact(int)


class StrictBool(fields.Boolean):
    """A JSON true/false, nothing else."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> bool:
        if not isinstance(value, bool):
            raise self.make_error("invalid")
        return value

    def fast(self) -> Conv:
        return _exact(bool)


class StrictString(fields.String):
    """A JSON string (marshmallow would also accept bytes)."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> str:
        if not isinstance(value, str):
            raise self.make_error("invalid")
        return value

    def fast(self) -> Conv:
        return _exact(str)


class CardField(fields.Field[Card]):
    """A card string of one game's pack."""

    default_error_messages = {"invalid": "Not a card of this game's pack."}

    def __init__(self, pack: Iterable[Card], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._by_text = by_text(tuple(pack))

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> Card:
        card = self._by_text.get(value) if isinstance(value, str) else None
        if card is None:
            raise self.make_error("invalid")
        return card

    def _serialize(self, value: Any, attr: str | None, obj: Any, **kwargs: Any) -> str | None:
        return None if value is None else str(value)

    def fast(self) -> Conv:
        get = self._by_text.get

        def conv(v: Any) -> Any:
            card = get(v) if type(v) is str else None
            if card is None:
                raise _GIVE_UP
            return card

        return conv


_ANY_LENGTH: Final = 10_000
"""``CardList``'s default bound: longer than any pack, so not worth a ``maxItems`` in the contract."""


class CardList(fields.Field[tuple[Card, ...]]):
    """A list of card strings of one game's pack, loaded in one step (a hot path: every state holds
    several). Errors name the index: ``hands.0.2``."""

    default_error_messages = {"type": "Must be a list of cards.", "length": "Must hold {bounds} cards."}

    def __init__(self, pack: Iterable[Card], min_len: int = 0, max_len: int = _ANY_LENGTH, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._by_text = by_text(tuple(pack))
        self._min, self._max = min_len, max_len

    def contract(self, loaded: Any) -> dict[str, Any]:
        """The contract's schema (``loaded.Loaded``): the game's cards, as many as the list takes."""
        out: dict[str, Any] = {"type": "array"}
        if self._min:
            out["minItems"] = self._min
        if self._max < _ANY_LENGTH:
            out["maxItems"] = self._max
        out["items"] = loaded.card
        return out

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> tuple[Card, ...]:
        if not isinstance(value, list):
            raise self.make_error("type")
        if not self._min <= len(value) <= self._max:
            bounds = str(self._min) if self._min == self._max else f"{self._min} to {self._max}"
            raise self.make_error("length", bounds=bounds)
        get = self._by_text.get
        out = [get(v) if isinstance(v, str) else None for v in value]
        if None in out:
            raise ValidationError({i: ["Not a card of this game's pack."] for i, c in enumerate(out) if c is None})
        return tuple(out)  # type: ignore[arg-type]

    def fast(self) -> Conv:
        get, lo, hi = self._by_text.get, self._min, self._max

        def conv(v: Any) -> Any:
            if type(v) is not list or not lo <= len(v) <= hi:
                raise _GIVE_UP
            out = tuple([get(x) if type(x) is str else None for x in v])
            if None in out:
                raise _GIVE_UP
            return out

        return conv


class IntList(fields.Field[tuple[int, ...]]):
    """A list of JSON integers in [lo, hi] of exactly ``length`` entries."""

    default_error_messages = {"type": "Must be a list of {length} integers from {lo} to {hi}."}

    def __init__(self, length: int, lo: int, hi: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._length, self._lo, self._hi = length, lo, hi

    def contract(self, loaded: Any) -> dict[str, Any]:
        """The contract's schema (``loaded.Loaded``)."""
        n = self._length
        return {"type": "array", "minItems": n, "maxItems": n, "items": {"type": "integer", "minimum": self._lo, "maximum": self._hi}}

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> tuple[int, ...]:
        lo, hi = self._lo, self._hi
        if (
            not isinstance(value, list)
            or len(value) != self._length
            or not all(type(v) is int and lo <= v <= hi for v in value)
        ):
            raise self.make_error("type", length=self._length, lo=lo, hi=hi)
        return tuple(value)

    def fast(self) -> Conv:
        length, lo, hi = self._length, self._lo, self._hi

        def conv(v: Any) -> Any:
            if type(v) is not list or len(v) != length:
                raise _GIVE_UP
            for x in v:
                if type(x) is not int or not lo <= x <= hi:
                    raise _GIVE_UP
            return tuple(v)

        return conv


class ObjectField(fields.Field[dict[str, Any]]):
    """Any JSON object, passed on as is (its contents are the game's to judge)."""

    default_error_messages = {"invalid": "Must be a JSON object."}

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.make_error("invalid")
        return value

    def fast(self) -> Conv:
        return _exact(dict)


class SuitField(fields.Field[Suit]):
    """A suit letter S, H, D or C."""

    default_error_messages = {"invalid": "Not a suit (S, H, D, C)."}

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> Suit:
        if not isinstance(value, str) or value not in Suit.__members__:
            raise self.make_error("invalid")
        return Suit(value)

    def fast(self) -> Conv:
        suits = {name: Suit(name) for name in Suit.__members__}

        def conv(v: Any) -> Any:
            suit = suits.get(v) if type(v) is str else None
            if suit is None:
                raise _GIVE_UP
            return suit

        return conv


def SeatField(players: int, **kwargs: Any) -> StrictInt:
    """A seat number 0 .. players-1 (the contract writes it as the game's seat schema)."""
    kwargs["metadata"] = {"wire": "seat", **kwargs.get("metadata", {})}
    return StrictInt(validate=validate.Range(0, players - 1), **kwargs)


# --- schemas --------------------------------------------------------------------------------


def _hooks(schema: Schema) -> Mapping[str, list[tuple[str, bool, dict[str, Any]]]] | None:
    """The schema's hooks by tag, in marshmallow 4's layout; None if another layout (no plan)."""
    hooks = getattr(type(schema), "_hooks", None)
    if not isinstance(hooks, Mapping) or any(not isinstance(k, str) for k in hooks):
        return None
    if any(tag not in _TAGS for tag in hooks):
        return None
    return hooks


def _compile_schema(schema: Schema) -> Conv | None:
    """The schema's plan, or None when it uses what a plan does not model."""
    hooks = _hooks(schema)
    if hooks is None or hooks.get("pre_load") or hooks.get("validates"):
        return None
    if schema.many or schema.partial or schema.unknown not in (RAISE, EXCLUDE, INCLUDE):
        return None
    validators = []
    for name, many, kwargs in hooks.get("validates_schema", ()):
        if many or kwargs.get("pass_original"):
            return None
        validators.append(getattr(schema, name))
    processors = []
    for name, many, kwargs in hooks.get("post_load", ()):
        if many or kwargs.get("pass_original"):
            return None
        processors.append(getattr(schema, name))
    entries: list[tuple[str, str, Conv | None, fields.Field[Any], bool, Any, bool]] = []
    for attr_name, field in schema.load_fields.items():
        key = field.data_key if field.data_key is not None else attr_name
        out_key = field.attribute or attr_name
        if "." in out_key:
            return None  # marshmallow would nest the value: not modelled
        conv = _compile_field(field)
        entries.append((key, out_key, conv, field, bool(field.required), field.load_default, bool(field.allow_none)))
    known = frozenset(e[0] for e in entries)
    unknown, partial = schema.unknown, schema.partial
    dict_class = schema.dict_class
    run_hooks = bool(validators or processors)

    def plan(data: Any) -> Any:
        if type(data) is not dict:
            raise _GIVE_UP
        out = dict_class()
        for key, out_key, conv, field, required, default, allow_none in entries:
            if conv is None:  # the field loads itself: marshmallow's own semantics, missing included
                value = field.deserialize(data.get(key, missing), key, data)
                if value is not missing:
                    out[out_key] = value
                continue
            if key in data:
                value = data[key]
                if value is None:
                    if not allow_none:
                        raise _GIVE_UP
                    out[out_key] = None
                else:
                    out[out_key] = conv(value)
            elif required:
                raise _GIVE_UP
            elif default is not missing:
                out[out_key] = default() if callable(default) else default
        if unknown is not EXCLUDE and not known.issuperset(data):
            if unknown is RAISE:
                raise _GIVE_UP
            for key in data:
                if key not in known:
                    out[key] = data[key]
        if run_hooks:
            for check in validators:
                check(out, partial=partial, many=False, unknown=unknown)
            for process in processors:
                out = process(out, many=False, partial=partial, unknown=unknown)
        return out

    return plan


def _plan_of(schema: Schema) -> Conv | None:
    """The schema's plan, compiled on first use. Kept with the instance's id: a copy of the instance
    (``Nested`` copies a schema instance before narrowing it with ``only``/``exclude``) compiles its own."""
    known = schema.__dict__.get("_fast_plan")
    if known is None or known[0] != id(schema):
        known = (id(schema), _compile_schema(schema))
        schema.__dict__["_fast_plan"] = known
    return cast("Conv | None", known[1])


def has_plan(schema: Schema) -> bool:
    """Whether ``schema`` loads through a compiled plan (tests check that hot schemas do)."""
    return _plan_of(schema) is not None


class FastSchema(Schema):
    """A marshmallow ``Schema`` whose plain ``load`` runs its compiled plan first (see the module)."""

    def load(
        self,
        data: Any,
        *,
        many: bool | None = None,
        partial: Any = None,
        unknown: Literal["exclude", "include", "raise"] | None = None,
    ) -> Any:
        if many is None and partial is None and unknown is None:
            plan = _plan_of(self)
            if plan is not None:
                try:
                    return plan(data)
                except Exception:  # noqa: BLE001, S110 - any doubt: marshmallow decides, and words the refusal
                    pass
        return super().load(data, many=many, partial=partial, unknown=unknown)


class StrictSchema(FastSchema):
    """A ``FastSchema`` that refuses unknown members: every part of a game's state."""

    class Meta:
        unknown = RAISE
