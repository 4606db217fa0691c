"""Thin views: the edge parses the body (body.py), the caller is built from the headers, the query
and the clock, the referee core (service/referee.py) answers, the view serializes. No rules here;
every refusal is raised to problems.py."""

from __future__ import annotations

import dataclasses
from typing import Any

from flask import Blueprint, Response, current_app, g, request
from marshmallow import Schema, ValidationError

from .. import jsonio
from ..engines import ENGINES
from ..engines.base import AnyEngine, IllegalMove, RulesError
from ..observability import count_illegal_move
from ..referee import Caller, Referee, now_ms
from ..schemas.common import MoveRequest, NewRequest, ReplayRequest, StateRequest, to_wire
from .body import _body
from .query import refuse_unknown_query

bp = Blueprint("api", __name__)
bp.before_app_request(refuse_unknown_query)  # every operation of the app, not only this blueprint's

_NEW, _STATE, _MOVE, _REPLAY = NewRequest(), StateRequest(), MoveRequest(), ReplayRequest()


# --- request plumbing -----------------------------------------------------------------------


def _json(obj: Any, status: int = 200) -> Response:
    return Response(jsonio.dumps(obj), status=status, content_type="application/json")  # as the mimetype would, unparsed


def referee() -> Referee:
    """This app's referee core (built by the app factory)."""
    return current_app.extensions["referee.referee"]  # type: ignore[no-any-return]


def _referee_of(game_id: str) -> Referee:
    """This app's referee once it knows ``game_id``: 404 ``unknown_game`` comes before the body is read."""
    ref = referee()
    ref.game(game_id)
    return ref


def _caller() -> Caller:
    """The caller as the core takes it: the seat key sent (``X-Seat-Key``), the seat asked for
    (``?as=``, as sent: the core checks it against the game) and the server clock."""
    environ = request.environ  # the header and the query as the server passed them (no parsing when absent)
    view_as = request.args.get("as") if environ.get("QUERY_STRING") else None
    return Caller(environ.get("HTTP_X_SEAT_KEY"), view_as, now_ms())


# --- endpoints ------------------------------------------------------------------------------


@bp.get("/v1/games")
def catalogue() -> Response:
    """Every game's catalogue entry."""
    return _json({"games": [_entry(e) for e in ENGINES.values()]})


@bp.get("/v1/games/<game_id>")
def game(game_id: str) -> Response:
    """One game's catalogue entry."""
    engine, _ = referee().game(game_id)
    return _json(_entry(engine))


def _entry(engine: AnyEngine) -> dict[str, Any]:
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
    return _json(referee().jwks())


@bp.post("/v1/games/<game_id>/new")
def new(game_id: str) -> Response:
    """Start a game: 201 with the envelope (and, sealed, the seat and table keys)."""
    ref = _referee_of(game_id)
    return _json(ref.new(game_id, _body(_NEW, allow_empty=True), _caller()), 201)


@bp.post("/v1/games/<game_id>/state")
def state(game_id: str) -> Response:
    """The envelope for a state; nothing applied."""
    ref = _referee_of(game_id)
    return _json(ref.state(game_id, _body(_STATE), _caller()))


@bp.post("/v1/games/<game_id>/moves")
def moves(game_id: str) -> Response:
    """Apply one move: 200 with the new envelope, or 422 with the rule that refuses it."""
    ref = _referee_of(game_id)
    body = _body(_MOVE)
    g.raw_move = body["move"]  # a rules refusal's problem names the move as sent
    return _json(ref.move(game_id, body, _caller()))


@bp.post("/v1/games/<game_id>/check")
def check(game_id: str) -> Response:
    """Whether a move is legal; nothing applied."""
    ref = _referee_of(game_id)
    body = _body(_MOVE)
    g.raw_move = body["move"]
    return _json(ref.check(game_id, body, _caller()))


@bp.post("/v1/games/<game_id>/replay")
def replay(game_id: str) -> Response:
    """Judge a whole move log from a fixed deal, or a signed match record: how far it is legal,
    and the final envelope (a record's verdict also says whether the result matches, and is signed)."""
    ref = _referee_of(game_id)
    body = _body(_REPLAY_OR_RECORD)
    if "record" in body:
        return _json(ref.adjudicate(body["record"], game_id))
    return _json(ref.replay(game_id, body, _caller()))


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


def count_refusal(exc: RulesError) -> None:
    """The referee's ``on_refusal``: an illegal move answered (check, replay) counts in the metrics."""
    if isinstance(exc, IllegalMove):
        count_illegal_move(exc.code)
