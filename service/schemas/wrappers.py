"""The request and answer schemas every game has, written from its declarations into openapi.yaml.

Each game's ``new``, ``moves``, ``check``, ``state`` and ``replay`` bodies, its envelope, its match
record and its replay verdict have the same shape in every game; only the game's own parts differ
(its state, view, move, options, events and scores schemas, its card and seat, its player counts).
``wrappers`` writes them for one game from its ``Contract``; ``python3 -m service.schemas.contract``
puts them in openapi.yaml beside the move schemas.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any, Final

from marshmallow import Schema

from ..engines import ENGINES
from .common import MAX_MOVES, REF, to_wire
from .loaded import Loaded
from .moves import Moves, Wire, collect

__all__ = ["Contract", "enums", "options", "state_components", "wrappers"]



def ref(name: str) -> dict[str, str]:
    return {"$ref": REF + name}


_OPTIONS: Final = "§3 options. Omitted options take their defaults; an unknown or invalid one is 422 `invalid_option`."


@dataclass(frozen=True)
class Contract:
    """What a game's request and answer schemas need besides its moves: the card and seat schemas
    a deck and a seat list use, the game's title in descriptions (its name by default), and what
    its option schemas say beyond the engine's option table (``OPTION_INFO``)."""

    moves: Moves
    card: Wire
    seat: str
    title: str | None = None
    options: str = _OPTIONS
    """The options' description."""
    option_schemas: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    """JSON Schema keywords of an option beyond its table entry (an array's items, ``multipleOf``)."""
    input_options: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    """Options accepted on input beside the table's (Russian Bank's ignored ``dealer``), first."""
    rules_version: bool = True
    """The record names its rules edition by the game's ``<Game>RulesVersion`` schema (the claim
    games have none: any string)."""
    state: Schema | None = None
    """The game's state loader, which ``<Game>State`` and its parts are written from (``loaded``);
    ``None`` while the game's state schema is still written by hand in openapi.yaml."""
    view: Wire | None = None
    """``<Game>View`` (``sent.View``), ``None`` while written by hand."""
    events: Wire | None = None
    """``<Game>Event`` (``sent.events``), ``None`` while written by hand."""
    scores: Wire | None = None
    """``<Game>Scores``, ``None`` while written by hand."""


def state_components(contract: Contract) -> dict[str, Any]:
    """``<Game>State``, ``<Game>View``, ``<Game>Event`` and ``<Game>Scores`` where the game declares
    them, and every component they reach, by name."""
    out: dict[str, Any] = {}
    if contract.state is not None:
        moves = contract.moves
        collect(Loaded(moves.prefix, contract.card, moves.seat).state(contract.state), out)
    for wire in (contract.view, contract.events, contract.scores):
        if wire is not None:
            collect(wire, out)
    return out


def wrappers(contract: Contract) -> dict[str, Any]:
    """The game's ``<Game>NewRequest`` … ``<Game>ReplayResult`` schemas, by name."""
    moves = contract.moves
    game = moves.game
    P = moves.prefix  # the component names' prefix, as openapi.yaml writes them
    title = contract.title or game.name
    counts = game.player_counts
    players = {
        "description": f"Number of players ({', '.join(map(str, counts))}); defaults to {game.default_players}.",
        "type": "integer",
        "enum": list(counts),
    }
    card = contract.card.ref()
    seat = ref(contract.seat)
    rules_version = ref(P + "RulesVersion") if contract.rules_version else {"type": "string"}
    setup = {"players": players, "options": ref(P + "OptionsInput")}  # what new and replay begin a match from
    deck = {
        "description": "Every card of the game's pack for these players and options, exactly once, top card first (else 422\n"
        "`invalid_deck`).\n",
        "type": "array",
        "uniqueItems": True,
        "items": card,
    }
    move = {
        "description": "The move. Must be a JSON object (else 400); anything wrong inside it is a 422 with the game's code\n"
        "(`invalid_move`, `unknown_move_type`, ...).\n",
        "$ref": REF + P + "Move",
    }
    log = {
        "description": f"The move log, in order (at most {MAX_MOVES:,} moves). Each entry must be a move of this game as its\n"
        "schema writes it, else the whole request is 400 `invalid_request` with the JSON Pointer of each\n"
        "such entry (`/moves/3/player`), before any move is judged; a well-formed move the rules refuse\n"
        "is the verdict's `first_illegal`.\n",
        "type": "array",
        "maxItems": MAX_MOVES,
        "items": ref(P + "Move"),
    }
    return {
        P + "NewRequest": {
            "description": f'Starts a {title} game. Every member is optional; an empty body means `{{}}`.',
            "type": "object",
            "additionalProperties": False,
            "properties": {
                **setup,
                "deck": deck,
                "seed": ref("Seed"),
            },
        },
        P + "MoveWithState": {
            "description": 'Open mode: a move and the full state it applies to.',
            "type": "object",
            "additionalProperties": False,
            "required": ["state", "move"],
            "properties": {
                "state": ref(P + "State"),
                "move": move,
                "expected_seq": ref("ExpectedSeq"),
            },
        },
        P + "MoveWithToken": {
            "description": 'Sealed mode: a move and the token of the state it applies to.',
            "type": "object",
            "additionalProperties": False,
            "required": ["token", "move"],
            "properties": {
                "token": ref("Token"),
                "move": move,
                "expected_seq": ref("ExpectedSeq"),
            },
        },
        P + "MoveRequest": {
            "description": 'A move and exactly one of `state` (open mode) and `token` (sealed mode); both or neither: 400\n`invalid_request`; a `token` in open mode: 400; a `state` in sealed mode: 403 `token_required`.\n',
            "oneOf": [ref(P + "MoveWithState"), ref(P + "MoveWithToken")],
        },
        P + "StateWithState": {
            "description": 'Open mode: the full state.',
            "type": "object",
            "additionalProperties": False,
            "required": ["state"],
            "properties": {
                "state": ref(P + "State"),
                "expected_seq": ref("ExpectedSeq"),
            },
        },
        P + "StateWithToken": {
            "description": 'Sealed mode: the token.',
            "type": "object",
            "additionalProperties": False,
            "required": ["token"],
            "properties": {
                "token": ref("Token"),
                "expected_seq": ref("ExpectedSeq"),
            },
        },
        P + "StateRequest": {
            "description": 'Exactly one of `state` (open mode) and `token` (sealed mode).',
            "oneOf": [ref(P + "StateWithState"), ref(P + "StateWithToken")],
        },
        P + "ReplayFromDeck": {
            "description": 'A move log from a fixed first deal (`seed`, if given, fixes every later shuffle).',
            "type": "object",
            "additionalProperties": False,
            "required": ["deck", "moves"],
            "properties": {
                **setup,
                "deck": deck,
                "seed": ref("Seed"),
                "moves": log,
            },
        },
        P + "ReplayFromSeed": {
            "description": 'A move log from a seeded match.',
            "type": "object",
            "additionalProperties": False,
            "required": ["seed", "moves"],
            "properties": {
                **setup,
                "seed": ref("Seed"),
                "moves": log,
            },
        },
        P + "ReplayRecord": {
            "description": 'A signed match record, in either mode: checked against `GET /v1/keys` and its commitment, then\nreplayed with the deals rebuilt from the revealed secret.\n',
            "type": "object",
            "additionalProperties": False,
            "required": ["record"],
            "properties": {
                "record": ref(P + "MatchRecord"),
            },
        },
        P + "ReplayRequest": {
            "description": 'A move log with its setup (`deck` or `seed`), or a signed record.',
            "oneOf": [ref(P + "ReplayFromDeck"), ref(P + "ReplayFromSeed"), ref(P + "ReplayRecord")],
        },
        P + "MatchRecord": {
            "description": f'A finished sealed {title} match, signed (docs/fair-play.md).',
            "type": "object",
            "required": [
                "game",
                "rules_version",
                "players",
                "options",
                "match_id",
                "fairness",
                "moves",
                "result",
                "key_id",
                "signature",
            ],
            "properties": {
                "format": {
                    "type": "string",
                    "examples": ['card-referee-record/1'],
                },
                "game": {
                    "type": "string",
                    "const": game.game_id,
                },
                "rules_version": rules_version,
                "players": {
                    "type": "integer",
                    "enum": list(counts),
                },
                "options": ref(P + "Options"),
                "match_id": {
                    "type": "string",
                },
                "fairness": ref("Fairness"),
                "setup": {
                    "description": 'The fixed first deal, when the operator allowed one.',
                    "type": "object",
                    "properties": {
                        "deck": {
                            "description": "Every card of the game's pack for these players and options, exactly once, top card first (else 422\n`invalid_deck`).\n",
                            "type": "array",
                            "uniqueItems": True,
                            "items": card,
                        },
                        "seed": ref("Seed"),
                    },
                },
                "moves": {
                    "description": 'Every accepted move, in order, as it was applied.',
                    "type": "array",
                    "items": ref(P + "Move"),
                },
                "result": ref("RecordResult"),
                "key_id": {
                    "description": 'The `kid` of the signing key in `GET /v1/keys`.',
                    "type": "string",
                },
                "signature": {
                    "description": 'Ed25519 over the UTF-8 canonical JSON (RFC 8785) of the record without `signature`, base64url.',
                    "type": "string",
                },
            },
        },
        P + "Envelope": {
            "description": f'The answer of every state-returning {title} call (`new` 201, `moves` and `state` 200).',
            "type": "object",
            "required": [
                "game",
                "state",
                "status",
                "to_move",
                "legal_moves",
                "events",
                "scores",
                "winner",
            ],
            "properties": {
                "game": {
                    "type": "string",
                    "const": game.game_id,
                },
                "state": {
                    "description": "Open mode without `as`: the full state (with its derived values); with `as`: that seat's view;\nsealed mode: the view of `as`, else the public view.\n",
                    "anyOf": [ref(P + "State"), ref(P + "View")],
                },
                "token": {
                    "description": 'Sealed mode only. Send it back to continue.',
                    "type": "string",
                    "minLength": 1,
                },
                "status": {
                    "description": '`deal_over` between deals, `finished` once the game has ended, else `in_progress`.',
                    "type": "string",
                    "enum": ["in_progress", "deal_over", "finished"],
                },
                "to_move": {
                    "description": 'The seats to act now (`[]` once the game has ended).',
                    "type": "array",
                    "items": seat,
                },
                "legal_moves": {
                    "description": "Open mode without `as`: every legal move of every seat to move; with `as`: that seat's moves only;\nsealed mode without `as`: `[]`. Templates (such as `next_deal` without `deck`) stand for every move\nthat fills them in.\n",
                    "type": "array",
                    "items": ref(P + "Move"),
                },
                "events": {
                    "description": "What this request's move caused, in order (`new`: the deal; `state`: `[]`). An event of a type this\ncontract does not list is an `UnknownEvent`.\n",
                    "type": "array",
                    "items": {
                        "anyOf": [ref(P + "Event"), ref("UnknownEvent")],
                    },
                },
                "scores": ref(P + "Scores"),
                "winner": {
                    "description": '`null` while play goes on, else the winning seats (`[]` for a draw).',
                    "anyOf": [
                        {
                            "type": "array",
                            "items": seat,
                        },
                        {
                            "type": "null",
                        },
                    ],
                },
                "seat_keys": ref("SeatKeys"),
                "table_key": {
                    "description": 'Sealed mode, `new` only: acts and views as any seat.',
                    "type": "string",
                },
                "fairness": ref("Fairness"),
                "record": {
                    "description": 'Sealed mode, once the match is finished: the signed match record.',
                    "$ref": REF + P + "MatchRecord",
                },
            },
        },
        P + "ReplayResult": {
            "description": f'The verdict on a {title} move log or record.',
            "type": "object",
            "required": ["game", "moves_total", "moves_legal", "first_illegal", "final"],
            "properties": {
                "game": {
                    "type": "string",
                    "const": game.game_id,
                },
                "moves_total": {
                    "type": "integer",
                    "minimum": 0,
                    "maximum": 9007199254740991,
                },
                "moves_legal": {
                    "description": 'Legal moves before the first illegal one (replay stops there).',
                    "type": "integer",
                    "minimum": 0,
                    "maximum": 9007199254740991,
                },
                "first_illegal": {
                    "description": '`null` when every move was legal.',
                    "anyOf": [
                        ref("IllegalMove"),
                        {
                            "type": "null",
                        },
                    ],
                },
                "final": {
                    "description": "The envelope after the last legal move; its events are that move's.",
                    "$ref": REF + P + "Envelope",
                },
                "format": {
                    "description": "Record replays only: the verdict's format, `card-referee-verdict/1`.",
                    "type": "string",
                },
                "match_id": {
                    "description": 'Record replays only: the match the record is of.',
                    "type": "string",
                },
                "record_signature": {
                    "description": 'Record replays only: the `signature` of the record judged, tying the verdict to it.',
                    "type": "string",
                },
                "result": {
                    "description": 'Record replays only: the result the replay reached (compare `result_matches`).',
                    "$ref": REF + "RecordResult",
                },
                "result_matches": {
                    "description": "Record replays only: whether the replayed result equals the record's.",
                    "type": "boolean",
                },
                "key_id": {
                    "description": 'The `kid` of the key that signed this verdict (record replays).',
                    "type": "string",
                },
                "signature": {
                    "description": 'Ed25519 over the canonical JSON of the verdict without `signature`.',
                    "type": "string",
                },
            },
        },
    }


def options(contract: Contract) -> dict[str, Any]:
    """The game's ``<Game>Options`` (in answers: open) and ``<Game>OptionsInput`` (as sent: closed),
    from the engine's option table and defaults."""
    engine = ENGINES[contract.moves.game.game_id]
    defaults = {f.name: f.default for f in fields(engine.Options)}
    properties: dict[str, Any] = {name: dict(schema) for name, schema in contract.input_options.items()}
    for name, meta in engine.OPTION_INFO.items():
        schema: dict[str, Any] = {"description": meta["description"]}
        schema["type"] = [meta["type"], "null"] if meta.get("nullable") else meta["type"]
        schema.update({k: meta[k] for k in ("minimum", "maximum", "enum") if k in meta})
        schema.update(contract.option_schemas.get(name, {}))
        schema["default"] = to_wire(defaults[name])
        properties[name] = schema
    P = contract.moves.prefix
    return {
        P + "Options": {"description": contract.options, "type": "object", "properties": properties},
        P + "OptionsInput": {
            "description": f"{contract.options} (As sent by a client: closed; responses use the open `{P}Options`.)",
            "type": "object",
            "properties": properties,
            "additionalProperties": False,
        },
    }


def enums(contract: Contract) -> dict[str, Any]:
    """The game's ``<Game>Phase`` (the engine's ``Phase`` values), ``<Game>ProblemCode`` (its
    ``GameInfo.codes``; none for a game with no codes of its own: an empty ``enum`` is no schema a
    client generator accepts) and ``<Game>RulesVersion`` (its state's edition; the records of the
    games with ``rules_version=False`` name theirs as any string)."""
    game = contract.moves.game
    engine = ENGINES[game.game_id]
    P = contract.moves.prefix
    out: dict[str, Any] = {P + "Phase": {"type": "string", "enum": [phase.value for phase in engine.Phase]}}
    short = game.name.partition(" (")[0]  # the name without its gloss: "Bragging"
    if game.codes:
        out[P + "ProblemCode"] = {"description": f"{short}'s own codes (§8), all 422.", "type": "string", "enum": list(game.codes)}
    out[P + "RulesVersion"] = {"type": "string", "enum": [game.rules_version]}
    return out
