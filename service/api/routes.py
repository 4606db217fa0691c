"""Thin views: load → engine → dump. No rules here; every refusal is raised to problems.py."""

from __future__ import annotations

import dataclasses
from typing import Any

from flask import Blueprint, Response
from marshmallow import Schema, ValidationError

from .. import jsonio
from ..engines import ENGINES, find
from ..engines.base import IllegalMove, RulesError
from ..observability import count_illegal_move
from ..records import VERDICT_FORMAT, RecordError, adjudicate, public_keys
from ..schemas import SCHEMAS, GameCodec
from ..schemas.common import MoveRequest, NewRequest, ReplayRequest, StateRequest, to_wire
from ..schemas.move_shape import move_problem
from .body import _body
from .envelope import envelope
from .problems import MAX_ERRORS, ApiError, rules_problem
from .query import refuse_unknown_query
from .table import Table, fair_play, fixed_decks_allowed

bp = Blueprint("api", __name__)
bp.before_app_request(refuse_unknown_query)  # every operation of the app, not only this blueprint's

_NEW, _STATE, _MOVE, _REPLAY = NewRequest(), StateRequest(), MoveRequest(), ReplayRequest()


# --- request plumbing -----------------------------------------------------------------------


def _json(obj: Any, status: int = 200) -> Response:
    return Response(jsonio.dumps(obj), status=status, mimetype="application/json")


def _game(game_id: str) -> tuple[Any, GameCodec]:
    engine = find(game_id)  # UnknownGame → 404
    return engine, SCHEMAS[game_id]


# --- endpoints ------------------------------------------------------------------------------


@bp.get("/v1/games")
def catalogue() -> Response:
    """Every game's catalogue entry."""
    return _json({"games": [_entry(e) for e in ENGINES.values()]})


@bp.get("/v1/games/<game_id>")
def game(game_id: str) -> Response:
    """One game's catalogue entry."""
    engine, _ = _game(game_id)
    return _json(_entry(engine))


def _entry(engine: Any) -> dict[str, Any]:
    defaults = {f.name: f.default for f in dataclasses.fields(engine.Options)}
    options = {name: {**meta, "default": to_wire(defaults[name])} for name, meta in engine.OPTION_INFO.items()}
    return {
        "id": engine.GAME_ID,
        "name": engine.NAME,
        "players": list(engine.PLAYER_COUNTS),
        "default_players": engine.DEFAULT_PLAYERS,
        "rules_version": engine.RULES_VERSION,
        "move_types": list(engine.MOVE_TYPES),
        "options": options,
        "rules_url": f"/v1/games/{engine.GAME_ID}/rules",
    }


@bp.get("/v1/keys")
def keys() -> Response:
    """The public keys that sign match records and verdicts, as a JWK Set (older keys included)."""
    return _json(fair_play().jwks())


@bp.post("/v1/games/<game_id>/new")
def new(game_id: str) -> Response:
    """Start a game: 201 with the envelope (and, sealed, the seat and table keys)."""
    engine, codec = _game(game_id)
    table, events = Table.create(engine, codec, _body(_NEW, allow_empty=True))
    table.view_as()
    return _json(table.answer(events, keys=True), 201)


@bp.post("/v1/games/<game_id>/state")
def state(game_id: str) -> Response:
    """The envelope for a state; nothing applied."""
    engine, codec = _game(game_id)
    table = Table.begin(engine, codec, _body(_STATE))
    return _json(table.answer([]))


@bp.post("/v1/games/<game_id>/moves")
def moves(game_id: str) -> Response:
    """Apply one move: 200 with the new envelope, or 422 with the rule that refuses it."""
    engine, codec = _game(game_id)
    body = _body(_MOVE)
    table = Table.begin(engine, codec, body)
    move = table.move(body["move"])
    new_state, events = engine.step(table.state, move)
    table.accept(move, new_state)
    return _json(table.answer(events))


def _count_refusal(exc: RulesError) -> None:
    if isinstance(exc, IllegalMove):
        count_illegal_move(exc.code)


@bp.post("/v1/games/<game_id>/check")
def check(game_id: str) -> Response:
    """Whether a move is legal; nothing applied."""
    engine, codec = _game(game_id)
    body = _body(_MOVE)
    table = Table.begin(engine, codec, body)
    move = table.move(body["move"])
    try:
        engine.step(table.state, move)
    except RulesError as exc:
        _count_refusal(exc)
        return _json({"legal": False, "error": rules_problem(exc, body["move"])})
    return _json({"legal": True})


@bp.post("/v1/games/<game_id>/replay")
def replay(game_id: str) -> Response:
    """Judge a whole move log from a fixed deal, or a signed match record: how far it is legal,
    and the final envelope (a record's verdict also says whether the result matches, and is signed)."""
    engine, codec = _game(game_id)
    body = _body(_REPLAY_OR_RECORD)
    if "record" in body:
        return _json(_adjudicate(engine, body["record"]))
    _every_move_of_the_game(engine.GAME_ID, body["moves"])
    fixed_decks_allowed("Replay")
    table, events = Table.create(engine, codec, body, replay=True)
    first_illegal = None
    legal = 0
    players = engine.players(table.state)
    for index, raw in enumerate(body["moves"]):
        move = table._fill_deck(codec.load_move(raw, players), from_client=False)
        try:
            new_state, events = engine.step(table.state, move)
        except RulesError as exc:
            _count_refusal(exc)
            first_illegal = {"index": index, "move": raw, "error": rules_problem(exc, raw)}
            break
        table.replay_move(move, new_state)  # sealed: the live token's record holds every move replayed
        legal += 1
    table.view_as()
    return _json(
        {
            "game": engine.GAME_ID,
            "moves_total": len(body["moves"]),
            "moves_legal": legal,
            "first_illegal": first_illegal,
            "final": table.answer(events, keys=True),
        }
    )


def _every_move_of_the_game(game_id: str, moves: list[Any]) -> None:
    """A replay's log is parsed whole before any engine runs: an entry that is not a move of this
    game as the contract writes it (``<Game>Move``) is a malformed request, 400 with the JSON
    Pointer of each such entry (at most MAX_ERRORS); a well-formed move the rules refuse is judged
    (``first_illegal``)."""
    errors: dict[str, list[str]] = {}
    for index, raw in enumerate(moves):
        found = move_problem(game_id, raw)
        if found is not None:
            errors[f"/moves/{index}{found[0]}"] = [found[1]]
            if len(errors) == MAX_ERRORS:
                break
    if errors:
        where, (message,) = next(iter(errors.items()))
        detail = f"{where}: {message} (a replay's moves must each be a move of this game)"
        raise ApiError(400, "invalid_request", detail, errors)


class _ReplayOrRecord(Schema):
    """``replay``'s body: a move log (ReplayRequest) or ``{"record": {...}}`` alone."""

    def load(self, data: Any, **kwargs: Any) -> Any:
        if isinstance(data, dict) and "record" in data:
            extra = sorted(set(data) - {"record"})
            if extra:
                raise ValidationError({name: ["Unknown field: a record is replayed alone."] for name in extra})
            if not isinstance(data["record"], dict):
                raise ValidationError({"record": ["Not a JSON object."]})
            return {"record": data["record"]}
        return _REPLAY.load(data, **kwargs)


_REPLAY_OR_RECORD = _ReplayOrRecord()


def _adjudicate(engine: Any, record: dict[str, Any]) -> dict[str, Any]:
    """The verdict on a signed record (records.adjudicate), itself signed."""
    fp = fair_play()
    keys = public_keys(fp.jwks())
    try:
        verdict = adjudicate(record, keys, rules_problem)
    except RecordError as exc:
        status = 422
        raise ApiError(status, exc.code, exc.detail) from None
    if verdict.game != engine.GAME_ID:
        raise ApiError(422, "invalid_record", f"This record is of {verdict.game}, not {engine.GAME_ID}: send it to its game.")
    codec = SCHEMAS[verdict.game]
    final = envelope(engine, codec, verdict.state, verdict.events, None, public=True)
    doc: dict[str, Any] = {
        "format": VERDICT_FORMAT,
        "game": verdict.game,
        "match_id": record["match_id"],
        "record_signature": record["signature"],
        "moves_total": verdict.moves_total,
        "moves_legal": verdict.moves_legal,
        "first_illegal": verdict.first_illegal,
        "result": verdict.result,
        "result_matches": verdict.result_matches,
        "final": final,
    }
    return fp.signer.sign(doc) if fp.signer is not None else doc
