"""A release reads the tokens of the release before it (service/schemas/packed.py, layouts.py).

Every layout a game's states were sealed in is recorded (``python3 -m service.schemas.history``);
a token packed in a recorded older layout is rewritten into the current one field by field, a field
added since taking its default, and plays on. The "previous release" here is built in the test:
Schnapsen whose Options had no ``show_points`` yet. A token of a layout nobody recorded stays 403
``bad_state_token``, and a recorded layout the current types cannot read stops the build.
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Iterator
from typing import Any, NamedTuple

import pytest
from flask import Flask

from service.engines import ENGINES, russian_bank, schnapsen
from service.schemas import SCHEMAS
from service.schemas.history import PATH, recorded_now, render
from service.schemas.layouts import LAYOUTS
from service.schemas.packed import LayoutError, Packer, describe
from tests.conftest import KEY_NEW, KEY_OLD, make_app
from tests.fairplay.helpers import new_match, play, true_state
from tests.playouts import random_playout


@dataclasses.dataclass(frozen=True, slots=True)
class Options:
    """Schnapsen's Options as the previous release declared them: no ``show_points`` (default True now)."""

    dealer: int = 0
    target: int = 7
    exchange_with_two_left: bool = False
    marriage_requires_trick: bool = False
    auto_claim: bool = False


PreviousState: Any = NamedTuple(  # type: ignore[misc]  # the functional form, from the current State's fields
    "State", [(name, Options if name == "options" else tp) for name, tp in typing.get_type_hints(schnapsen.State).items()]
)
PREVIOUS = Packer(PreviousState, history={})


def previous(state: Any) -> Any:
    """``state`` as the previous release held it (its options without ``show_points``)."""
    options = Options(**{f.name: getattr(state.options, f.name) for f in dataclasses.fields(Options)})
    return PreviousState(*(options if name == "options" else value for name, value in zip(state._fields, state, strict=True)))


def test_every_current_layout_is_recorded() -> None:
    assert render(recorded_now(LAYOUTS)) == PATH.read_text(encoding="utf-8"), "run python3 -m service.schemas.history"
    for game, codec in SCHEMAS.items():
        assert LAYOUTS[game][codec.packer.fingerprint] == codec.packer.layout == describe(ENGINES[game].State), game


def test_the_tokens_of_main_before_the_fingerprint_changed_are_read() -> None:
    """The fingerprints main sealed with (its layout as text, naming ``card_referee`` installed or
    ``service`` in a checkout) are recorded with today's layout: their states decode unchanged."""
    main = [(schnapsen, ("30eaf7854b37866f", "a5fd9fa992e29710"))]
    for engine, fingerprints in main:
        packer = SCHEMAS[engine.GAME_ID].packer
        *_, (_, _, state) = random_playout(engine, engine.DEFAULT_PLAYERS, 5, max_moves=40)
        for fp in fingerprints:
            assert packer.unpack({"f": fp, "s": packer.pack(state)["s"]}) == state


RUSSIAN_BANK_DRAWS = ("draw_offer", "draw_offered_this_turn", "stall", "fewest_left")  # added with §6.8 and §7.5


def test_russian_bank_tokens_of_before_the_draws_play_on_with_the_new_fields_at_their_defaults() -> None:
    """Main sealed Russian Bank in a layout without the draw fields and without ``stall_limit``
    (fingerprints recorded then); such a token decodes with no offer, no stall, no limit, and plays on."""
    engine, packer = russian_bank, SCHEMAS["russian_bank"].packer
    *_, (_, _, state) = random_playout(engine, engine.DEFAULT_PLAYERS, 5, max_moves=40)
    assert state.phase is engine.Phase.PLAY
    packed = packer.pack(state)["s"]
    names = state._fields
    old = [value for name, value in zip(names, packed, strict=True) if name not in RUSSIAN_BANK_DRAWS]
    old[names.index("options")] = old[names.index("options")][:-1]  # the options before stall_limit
    expected = state._replace(draw_offer=None, draw_offered_this_turn=False, stall=0, fewest_left=(0, 0))
    for fp in ("33255833cbb158a6", "9d6c1ff1123be5fb"):
        upgraded = packer.unpack({"f": fp, "s": old})
        assert upgraded == expected and upgraded.options.stall_limit is None
        engine.check_state(upgraded)
        move = engine.legal_moves(upgraded)[0]
        after = engine.apply(upgraded, move)
        assert after.phase in (engine.Phase.PLAY, engine.Phase.GAME_OVER)
        assert after.seq == upgraded.seq + 1 and after.stall in (0, 1)  # it plays on, counting from no stall


@pytest.fixture()
def recorded_previous(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The previous layout recorded for Schnapsen, and Schnapsen's packer built again from the
    record as the service builds it."""
    codec = SCHEMAS["schnapsen"]
    monkeypatch.setitem(LAYOUTS["schnapsen"], PREVIOUS.fingerprint, PREVIOUS.layout)
    current = codec.packer
    object.__setattr__(codec, "packer", Packer(schnapsen.State))  # GameCodec is frozen: as its __post_init__ sets it
    try:
        yield
    finally:
        object.__setattr__(codec, "packer", current)


def _previous_token(app: Flask, options: dict[str, Any]) -> dict[str, Any]:
    """A new Schnapsen match whose token is sealed as the previous release sealed it."""
    client = app.test_client()
    env = new_match(client, "schnapsen", None, options)
    sealer = app.extensions["referee.sealer"]
    match, _ = sealer.open("schnapsen", env["token"])
    state = true_state(client, "schnapsen", env["token"])
    return {**env, "token": sealer.seal("schnapsen", match.match_id, PREVIOUS.pack(previous(state)), match)}


@pytest.mark.usefixtures("recorded_previous")
def test_a_token_of_the_previous_layout_plays_on_with_the_new_option_at_its_default() -> None:
    app = make_app(SEAL_KEYS=[KEY_NEW, KEY_OLD])
    env = _previous_token(app, {"target": 2, "show_points": False})  # show_points did not exist: it comes back True
    assert PREVIOUS.fingerprint != SCHEMAS["schnapsen"].packer.fingerprint
    assert true_state(app.test_client(), "schnapsen", env["token"]).options.show_points is True
    moves = 0
    for _, _, after in play(app.test_client(), "schnapsen", env, 11, short=True):
        env, moves = after, moves + 1
    assert moves > 1 and env["status"] == "finished"
    final = true_state(app.test_client(), "schnapsen", env["token"])
    assert final.options == schnapsen.Options(target=2, show_points=True)


def test_a_token_of_an_unrecorded_layout_is_refused() -> None:
    app = make_app(SEAL_KEYS=[KEY_NEW, KEY_OLD])
    env = _previous_token(app, {"target": 2})
    r = app.test_client().post("/v1/games/schnapsen/state", json={"token": env["token"]}, headers={"X-Seat-Key": env["table_key"]})
    assert r.status_code == 403 and r.get_json()["code"] == "bad_state_token"


class Inner(NamedTuple):
    a: int
    b: str = "b"


class OldInner(NamedTuple):
    a: int


class Outer(NamedTuple):
    items: tuple[Inner, ...]
    pair: tuple[Inner, int]
    maybe: Inner | None
    became_optional: int | None


class OldOuter(NamedTuple):
    items: tuple[OldInner, ...]
    pair: tuple[OldInner, int]
    maybe: OldInner | None
    became_optional: int


def test_records_inside_sequences_tuples_and_optionals_are_upgraded_too() -> None:
    old = OldOuter((OldInner(1), OldInner(2)), (OldInner(3), 4), None, 5)
    packed = Packer(OldOuter, history={}).pack(old)
    packer = Packer(Outer, history={packed["f"]: describe(OldOuter)})
    assert packer.unpack(packed) == Outer((Inner(1), Inner(2)), (Inner(3), 4), None, 5)
    packed = Packer(OldOuter, history={}).pack(old._replace(maybe=OldInner(6)))
    assert packer.unpack(packed).maybe == Inner(6, "b")
    with pytest.raises(ValueError, match="recorded"):
        packer.unpack({**packed, "f": "0" * 16})
    with pytest.raises(ValueError):
        packer.unpack({**packed, "s": [*packed["s"], 1]})


def _without(layout: Any, *path: str) -> Any:
    """``layout`` with the field at ``path`` (record field names) removed."""
    fields = dict(layout["fields"])
    if len(path) == 1:
        del fields[path[0]]
    else:
        fields[path[0]] = _without(fields[path[0]], *path[1:])
    return {**layout, "fields": fields}


def _with(layout: Any, field: str, value: Any) -> Any:
    return {**layout, "fields": {**layout["fields"], field: value}}


@pytest.mark.parametrize(
    ("old", "says"),
    [
        (_without(describe(schnapsen.State), "phase"), "State.phase was added without a default"),
        (_with(describe(schnapsen.State), "retired", "int"), "State.retired was removed"),
        (_with(_without(describe(schnapsen.State), "options"), "options", _with(describe(schnapsen.Options), "x", "bool")),
         "State.options.x was removed"),
        (_with(describe(schnapsen.State), "seq", "str"), 'State.seq was "str" and is "int" now'),
        (_with(describe(schnapsen.State), "seed", "int"), None),  # int became int | None: readable
        (_with(describe(schnapsen.State), "trump_card", "card"), None),
        (_with(describe(schnapsen.State), "closed_by", "int"), None),
        (_with(describe(schnapsen.State), "to_move", ["optional", "str"]), 'State.to_move was "str" and is "int" now'),
        (_with(describe(schnapsen.State), "talon", ["seq", "int"]), 'State.talon\\[\\] was "int" and is "card" now'),
    ],
    ids=["added-without-default", "removed", "removed-inside", "type-changed", "became-optional-1", "became-optional-2",
         "became-optional-3", "inside-optional", "inside-seq"],
)
def test_a_recorded_layout_the_current_types_cannot_read_stops_the_build(old: Any, says: str | None) -> None:
    if says is None:
        assert Packer(schnapsen.State, history={"0" * 16: old}).upgrades
        return
    with pytest.raises(LayoutError, match=f"recorded layout {'0' * 16} cannot be upgraded: {says}"):
        Packer(schnapsen.State, history={"0" * 16: old})


def test_a_release_that_keeps_a_layout_seals_what_the_release_before_reads() -> None:
    """Old and new pods side by side (a rolling upgrade): while a game's layout is unchanged, new
    tokens carry the oldest recorded fingerprint of it, the one the release before sealed with (its
    installed ``card_referee``), so old pods read them; the current description's own fingerprint
    is read as well."""
    for game, codec in SCHEMAS.items():
        packer = codec.packer
        oldest_same = next(fp for fp, layout in LAYOUTS[game].items() if layout == packer.layout)
        assert packer.sealed_as == oldest_same, game
        *_, (_, _, state) = random_playout(ENGINES[game], ENGINES[game].DEFAULT_PLAYERS, 3, max_moves=20)
        packed = packer.pack(state)
        assert packed["f"] == oldest_same
        assert packer.unpack({"f": packer.fingerprint, "s": packed["s"]}) == state
    assert SCHEMAS["schnapsen"].packer.sealed_as == "30eaf7854b37866f"  # main's, installed
