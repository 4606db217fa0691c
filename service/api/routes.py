"""Thin views: load → engine → dump. No rules here; every refusal is raised to problems.py."""

from __future__ import annotations

import dataclasses
import json
import secrets
from collections.abc import Mapping, Sequence
from typing import Any

from flask import Blueprint, Response, current_app, g, request

from ..cards.shuffle import MAX_SEED, deal_deck
from ..config import Config
from ..engines import ENGINES, find
from ..engines.base import BadSetup, IllegalMove, RulesError, Seat
from ..engines.moves import NextDeal
from ..observability import count_illegal_move
from ..schemas import SCHEMAS, GameCodec
from ..schemas.common import MoveRequest, NewRequest, ReplayRequest, StateRequest, parse_deck, to_wire
from ..sealing import TABLE, BadToken, Sealer
from .body import _body
from .envelope import envelope
from .problems import ApiError, rules_problem

bp = Blueprint("api", __name__)

_NEW, _STATE, _MOVE, _REPLAY = NewRequest(), StateRequest(), MoveRequest(), ReplayRequest()
_SYSTEM_RANDOM = secrets.SystemRandom()


# --- request plumbing -----------------------------------------------------------------------


def _config() -> Config:
    return current_app.extensions["referee.config"]  # type: ignore[no-any-return]


def _sealer() -> Sealer | None:
    return current_app.extensions["referee.sealer"]  # type: ignore[no-any-return]


def _json(obj: Any, status: int = 200) -> Response:
    return Response(json.dumps(obj, separators=(",", ":")), status=status, mimetype="application/json")


def _game(game_id: str) -> tuple[Any, GameCodec]:
    engine = find(game_id)  # UnknownGame → 404
    return engine, SCHEMAS[game_id]


def _as_seat(engine: Any, state: Any) -> Seat | None:
    """The ``?as=`` seat, or None; 422 invalid_player when it names no seat."""
    raw = request.args.get("as")
    if raw is None:
        return None
    n = engine.players(state)
    if not (raw.isascii() and raw.isdigit() and len(raw) <= 3) or not 0 <= int(raw) < n:
        raise RulesError("invalid_player", f"as={raw!r} names no seat 0..{n - 1} of this game.")
    return int(raw)


def _authorize(match_id: str, seats: int, needed: Seat) -> None:
    """Sealed mode: ``X-Seat-Key`` must be ``needed``'s key or the table key (403 otherwise)."""
    sealer = _sealer()
    assert sealer is not None
    presented = request.headers.get("X-Seat-Key")
    if not presented:
        raise ApiError(403, "seat_key_required", f"Acting or viewing as seat {needed} needs that seat's X-Seat-Key.")
    who = sealer.identify(match_id, seats, presented)
    if who != TABLE and who != needed:
        raise ApiError(403, "bad_seat_key", f"X-Seat-Key is not the key of seat {needed} of this match.")


def _fixed_decks_allowed(what: str) -> None:
    if _sealer() is not None and not _config().allow_fixed_decks:
        raise ApiError(403, "fixed_deck_forbidden", f"{what} is refused in sealed mode unless the operator allows fixed decks.")


class _Loaded:
    """A state as the request brought it, with its sealed-match id (None in open mode)."""

    __slots__ = ("match_id", "state")

    def __init__(self, state: Any, match_id: str | None) -> None:
        self.state = state
        self.match_id = match_id


def _load(engine: Any, codec: GameCodec, body: Mapping[str, Any]) -> _Loaded:
    """The request's state: a token in sealed mode, a checked plain state in open mode."""
    sealer = _sealer()
    if sealer is not None:
        if "token" not in body:
            raise ApiError(403, "token_required", "This service runs sealed: send the token, not a plain state.")
        try:
            match_id, packed = sealer.unseal(engine.GAME_ID, body["token"])
            state = codec.unpack(packed)  # sealed by us: trusted, no re-validation
        except (BadToken, ValueError):
            raise ApiError(403, "bad_state_token", "The token was not sealed by this service for this game.") from None
        loaded = _Loaded(state, match_id)
    else:
        if "token" in body:
            raise ApiError(400, "invalid_request", "This service runs open: send the plain state.", {"token": ["open mode takes state"]})
        loaded = _Loaded(codec.load_state(body["state"]), None)
    expected = body.get("expected_seq")
    if expected is not None and expected != loaded.state.seq:
        raise RulesError("stale_state", f"expected_seq {expected} does not match the state's seq {loaded.state.seq}.")
    return loaded


def _fill_deck(engine: Any, state: Any, move: Any, *, from_client: bool) -> Any:
    """A ``next_deal`` without a deck gets one: seeded (seed + k - 1) or from the CSPRNG."""
    if not isinstance(move, NextDeal):
        return move
    if move.deck is not None:
        if from_client:
            _fixed_decks_allowed("A deck in next_deal")
        return move
    pack = engine.pack(state.options, engine.players(state))
    seed = getattr(state, "seed", None)
    if seed is not None:
        deck = deal_deck(pack, seed + state.deal_number)  # the next deal is deal_number + 1
    else:
        deck = tuple(_SYSTEM_RANDOM.sample(pack, len(pack)))
    return NextDeal(move.player, deck)


def _envelope(engine: Any, codec: GameCodec, loaded: _Loaded, events: Sequence[Any], viewer: Seat | None) -> dict[str, Any]:
    return envelope(engine, codec, loaded.state, events, viewer, _sealer(), loaded.match_id)


def _create(engine: Any, codec: GameCodec, body: Mapping[str, Any], *, draw_seed: bool = False) -> tuple[Any, list[Any]]:
    """A new game from a ``new``/``replay`` body: players, options, then deck (§4.1).

    ``draw_seed`` (``new`` only): a game whose rules need a seed even when the client gives none
    (``DRAWS_SEED``, e.g. Slapjack's in-game shuffle) gets one from the CSPRNG. ``replay`` never
    draws: the same log must always get the same verdict.
    """
    players = body.get("players", engine.DEFAULT_PLAYERS)
    if players not in engine.PLAYER_COUNTS:
        allowed = ", ".join(map(str, engine.PLAYER_COUNTS))
        raise BadSetup("invalid_players", f"{engine.NAME} is for {allowed} players, not {players}.")
    options = codec.load_options(body.get("options"))
    pack = engine.pack(options, players)
    seed = body.get("seed")
    if "deck" in body:
        deck = parse_deck(body["deck"], pack)
    elif seed is not None:
        deck = deal_deck(pack, seed)
    else:
        deck = tuple(_SYSTEM_RANDOM.sample(pack, len(pack)))
    if seed is None and draw_seed and getattr(engine, "DRAWS_SEED", False):
        seed = _SYSTEM_RANDOM.randrange(MAX_SEED + 1)
    state = engine.new_game(options, players, deck, seed)
    return state, engine.initial_events(state)


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


@bp.post("/v1/games/<game_id>/new")
def new(game_id: str) -> Response:
    """Start a game: 201 with the envelope (and, sealed, the seat and table keys)."""
    engine, codec = _game(game_id)
    body = _body(_NEW, allow_empty=True)
    if "deck" in body or "seed" in body:
        _fixed_decks_allowed("A fixed deck or seed")
    state, events = _create(engine, codec, body, draw_seed=True)
    sealer = _sealer()
    match_id = secrets.token_urlsafe(16) if sealer is not None else None
    loaded = _Loaded(state, match_id)
    viewer = _as_seat(engine, state)
    return _json(_with_keys(_envelope(engine, codec, loaded, events, viewer), engine, loaded), 201)


def _with_keys(env: dict[str, Any], engine: Any, loaded: _Loaded) -> dict[str, Any]:
    """Sealed mode: add the seat keys and the table key of a newly minted match."""
    sealer = _sealer()
    if sealer is not None and loaded.match_id is not None:
        env["seat_keys"] = [sealer.seat_key(loaded.match_id, s) for s in range(engine.players(loaded.state))]
        env["table_key"] = sealer.seat_key(loaded.match_id, TABLE)
    return env


@bp.post("/v1/games/<game_id>/state")
def state(game_id: str) -> Response:
    """The envelope for a state; nothing applied."""
    engine, codec = _game(game_id)
    loaded = _load(engine, codec, _body(_STATE))
    viewer = _viewer(engine, loaded)
    return _json(_envelope(engine, codec, loaded, [], viewer))


def _viewer(engine: Any, loaded: _Loaded) -> Seat | None:
    viewer = _as_seat(engine, loaded.state)
    if viewer is not None and loaded.match_id is not None:
        _authorize(loaded.match_id, engine.players(loaded.state), viewer)
    return viewer


def _acting(engine: Any, codec: GameCodec, loaded: _Loaded, raw_move: dict[str, Any]) -> Any:
    """The parsed move; in sealed mode the actor's key must match the move's seat."""
    g.raw_move = raw_move
    move = codec.load_move(raw_move, engine.players(loaded.state))
    if loaded.match_id is not None:
        seats = engine.players(loaded.state)
        claims = getattr(move, "claims", None)  # a batch of claims (slaps, snaps) names no single player
        claimants = {c.player for c in claims} if claims else set()
        if len(claimants) == 1:
            _authorize(loaded.match_id, seats, claimants.pop())
        elif claimants:  # claims of several seats: only the table (the judges) may send them together
            presented = request.headers.get("X-Seat-Key", "")
            sealer = _sealer()
            assert sealer is not None
            if not presented or sealer.identify(loaded.match_id, seats, presented) != TABLE:
                code = "bad_seat_key" if presented else "seat_key_required"
                raise ApiError(403, code, "Claims of several seats in one move need the table key in X-Seat-Key.")
        elif move.player is not None:
            _authorize(loaded.match_id, seats, move.player)
        else:  # an unreadable seat: the engine refuses the move, but only for a player of this match
            presented = request.headers.get("X-Seat-Key", "")
            if not presented:
                raise ApiError(403, "seat_key_required", "Acting needs an X-Seat-Key of this match.")
            sealer = _sealer()
            assert sealer is not None
            if sealer.identify(loaded.match_id, seats, presented) is None:
                raise ApiError(403, "bad_seat_key", "X-Seat-Key is not a key of this match.")
    return _fill_deck(engine, loaded.state, move, from_client=True)


@bp.post("/v1/games/<game_id>/moves")
def moves(game_id: str) -> Response:
    """Apply one move: 200 with the new envelope, or 422 with the rule that refuses it."""
    engine, codec = _game(game_id)
    body = _body(_MOVE)
    loaded = _load(engine, codec, body)
    viewer = _viewer(engine, loaded)
    move = _acting(engine, codec, loaded, body["move"])
    new_state, events = engine.step(loaded.state, move)
    return _json(_envelope(engine, codec, _Loaded(new_state, loaded.match_id), events, viewer))


def _count_refusal(exc: RulesError) -> None:
    if isinstance(exc, IllegalMove):
        count_illegal_move(exc.code)


@bp.post("/v1/games/<game_id>/check")
def check(game_id: str) -> Response:
    """Whether a move is legal; nothing applied."""
    engine, codec = _game(game_id)
    body = _body(_MOVE)
    loaded = _load(engine, codec, body)
    move = _acting(engine, codec, loaded, body["move"])
    try:
        engine.step(loaded.state, move)
    except RulesError as exc:
        _count_refusal(exc)
        return _json({"legal": False, "error": rules_problem(exc, body["move"])})
    return _json({"legal": True})


@bp.post("/v1/games/<game_id>/replay")
def replay(game_id: str) -> Response:
    """Judge a whole move log from a fixed deal: how far it is legal, and the final envelope."""
    engine, codec = _game(game_id)
    body = _body(_REPLAY)
    _fixed_decks_allowed("Replay")
    state, events = _create(engine, codec, body)
    first_illegal = None
    legal = 0
    players = engine.players(state)
    for index, raw in enumerate(body["moves"]):
        move = _fill_deck(engine, state, codec.load_move(raw, players), from_client=False)
        try:
            state, events = engine.step(state, move)
        except RulesError as exc:
            _count_refusal(exc)
            first_illegal = {"index": index, "move": raw, "error": rules_problem(exc, raw)}
            break
        legal += 1
    sealer = _sealer()
    loaded = _Loaded(state, secrets.token_urlsafe(16) if sealer is not None else None)
    viewer = _as_seat(engine, state)
    final = _with_keys(_envelope(engine, codec, loaded, events, viewer), engine, loaded)
    return _json(
        {
            "game": engine.GAME_ID,
            "moves_total": len(body["moves"]),
            "moves_legal": legal,
            "first_illegal": first_illegal,
            "final": final,
        }
    )
