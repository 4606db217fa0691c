"""Every game's five operations in openapi.yaml (``/v1/games/<id>/new`` … ``/replay``) and its
``as`` parameter, written from its ``Contract``: they are the same for every game but for the
game's names, so they are written once, here.

``python3 -m service.schemas.contract`` puts them in openapi.yaml's ``paths`` and
``components.parameters`` beside the generated schemas.
"""

from __future__ import annotations

from typing import Any, Final

from ..config import DEFAULT_NEW_BODY, DEFAULT_REPLAY_BODY, DEFAULT_STATE_BODY
from ..engines import ENGINES
from .wrappers import Contract

__all__ = ["as_parameter", "operations"]

_REF: Final = "#/components/"
_STATE: Final = "$response.body#/state"
_FIRST: Final = "$response.body#/legal_moves/0"


def _ref(kind: str, name: str) -> dict[str, str]:
    return {"$ref": f"{_REF}{kind}/{name}"}


def _refusals(*statuses: str) -> dict[str, Any]:
    names = {
        "400": "BadRequest", "403": "Forbidden", "404": "NotFound", "409": "Conflict", "413": "PayloadTooLarge",
        "414": "UriTooLong", "415": "UnsupportedMediaType", "422": "Unprocessable", "431": "HeadersTooLarge",
        "500": "InternalError", "503": "ServiceUnavailable",
    }
    return {status: _ref("responses", names[status]) for status in statuses}


_ALL: Final = ("400", "403", "404", "409", "413", "414", "415", "422", "431", "500", "503")
"""414 and 431 are the server's own (gunicorn's, before the app: a request line or header fields
too long, e.g. a huge ``as``): any request may get them."""
_NO_LEDGER: Final = tuple(s for s in _ALL if s != "409")
"""new and replay start from nothing: no token a ledger could have superseded."""


def as_parameter(contract: Contract) -> dict[str, Any]:
    """``As<Game>``: the ``as`` query parameter, a seat of the game or ``to_move``."""
    seats = max(ENGINES[contract.moves.game.game_id].PLAYER_COUNTS)
    return {
        "name": "as",
        "in": "query",
        "required": False,
        "description": "Answer with this seat's view: `state` is the seat's view, `legal_moves` lists that seat's moves\n"
        "only, and no card the seat cannot see appears anywhere in the response. A seat is written as a plain\n"
        "integer (`as=2`, not `as=2.0`); a seat the game does not have, or one written otherwise: 422\n"
        "`invalid_player`. In sealed mode it needs `X-Seat-Key` (that seat's key or the table key).\n"
        "`to_move`: the view of the seat to move once the request is done (after the move, on `moves`),\n"
        "so that a relaying host needs one request per move; when no single seat is to move (the game is\n"
        "over, or several seats may act at once) the public view, with no legal moves. In sealed mode\n"
        "`to_move` needs the table key (403 otherwise).\n",
        "schema": {"oneOf": [{"type": "integer", "minimum": 0, "maximum": seats - 1}, {"type": "string", "enum": ["to_move"]}]},
    }


def operations(contract: Contract) -> dict[str, Any]:
    """The game's five path items, by path."""
    game = contract.moves.game
    gid, P = game.game_id, contract.moves.prefix
    title = contract.title or game.name
    ids = {"new": f"new{P}", "moves": f"apply{P}Move", "state": f"read{P}State", "check": f"check{P}Move",
           "replay": f"replay{P}"}
    headers = {"X-Request-ID": _ref("headers", "XRequestId"), "Cache-Control": _ref("headers", "CacheControl")}

    def example(op: str, suffix: str = "") -> dict[str, Any]:
        """The operation's example (``SchnapsenMove``, or ``SchnapsenMoveResponse``), under ``schnapsen_move``."""
        name = "move" if op == "moves" else op
        return {f"{gid}_{name}": _ref("examples", P + name.capitalize() + suffix)}

    def follow(prefix: str) -> dict[str, Any]:
        """Links from an envelope: play or check its first legal move, or read it again."""
        return {
            f"{prefix}ApplyFirstLegalMove": {"operationId": ids["moves"],
                                             "description": "Play the first legal move of the position just answered.",
                                             "requestBody": {"state": _STATE, "move": _FIRST}},
            f"{prefix}CheckFirstLegalMove": {"operationId": ids["check"], "requestBody": {"state": _STATE, "move": _FIRST}},
            f"{prefix}ReadState": {"operationId": ids["state"], "requestBody": {"state": _STATE}},
        }

    def body(schema: str, op: str, *, required: bool = True) -> dict[str, Any]:
        out: dict[str, Any] = {"required": required}
        if not required:
            out["description"] = "An empty body (no bytes, or whitespace only, with any or no `Content-Type`) means `{}`."
        out["content"] = {"application/json": {"schema": _ref("schemas", schema), "examples": example(op)}}
        return out

    def answer(text: str, schema: str, *, cache: bool = True, examples: dict[str, Any] | None = None,
               links: dict[str, Any] | None = None) -> dict[str, Any]:
        media: dict[str, Any] = {"schema": _ref("schemas", schema)}
        if examples:
            media["examples"] = examples
        out: dict[str, Any] = {
            "description": text,
            "headers": headers if cache else {"X-Request-ID": headers["X-Request-ID"]},
            "content": {"application/json": media},
        }
        if links:
            out["links"] = links
        return out

    def post(op: str, summary: str, description: str, request: dict[str, Any], limit: int, responses: dict[str, Any], *,
             as_seat: bool = True) -> dict[str, Any]:
        parameters = ([_ref("parameters", "As" + P)] if as_seat else []) + [_ref("parameters", "RequestId")]
        return {"post": {
            "tags": [gid], "operationId": ids[op], "summary": summary, "description": description,
            "parameters": parameters, "security": [{}, {"SeatKey": []}], "requestBody": request,
            "x-body-limit": limit, "responses": responses,
        }}

    return {
        f"/v1/games/{gid}/new": post(
            "new", f"Start a {title} game",
            "Deals the first deal from `deck` (top card first), or from a seeded shuffle (`seed`), or from a\n"
            "cryptographically secure shuffle. `players` defaults to the game's default count. With `deck` and\n"
            "`seed` together, the deck fixes this deal and the seed every later shuffle. In sealed mode `deck`\n"
            "and `seed` are refused (403 `fixed_deck_forbidden`) unless the operator allows fixed decks, and the\n"
            "response carries `token`, `seat_keys`, `table_key` and `fairness`.\n",
            body(P + "NewRequest", "new", required=False), DEFAULT_NEW_BODY,
            {"201": answer("The game has started; the envelope of its first position.", P + "Envelope",
                           examples=example("new", "Response"), links=follow("New")), **_refusals(*_NO_LEDGER)},
        ),
        f"/v1/games/{gid}/moves": post(
            "moves", f"Apply one {title} move",
            "Checks `move` against the rules in the given state and answers with the envelope of the new state. A\n"
            "move the rules refuse is a 422 whose `code` is the first failing check in the rules' §8 order; the\n"
            "state is unchanged. Sealed mode with a ledger: a token older than the match's latest is 409\n"
            "`token_superseded`, and 503 `ledger_unavailable` (with `Retry-After`) when the ledger cannot be\n"
            "reached.\n\n"
            "**Idempotent for the same token and move** (sealed mode with a ledger): the same `move` sent again\n"
            "with the same `token`, on any instance (a retry after a lost reply, or a request raced by its own\n"
            "first sending), is answered 200 as the first time: the same events (then those of any move\n"
            "accepted since), the view of the position reached, a current token; a seat's timed claim keeps\n"
            "the referee's first timestamp. The token and the move are the key: no idempotency key is sent. A\n"
            "different move from that token is 409 `token_superseded`. This holds while the ledger keeps the\n"
            "match's moves (`REFEREE_LEDGER_FINISHED_TTL` after a match ends; until `REFEREE_LEDGER_TTL` after\n"
            "its last move otherwise). Without a ledger a token is never used up: the same move from it is\n"
            "applied again to the same state, with the same deal (from the match secret) but a new timestamp\n"
            "for a timed claim.\n",
            body(P + "MoveRequest", "moves"), DEFAULT_STATE_BODY,
            {"200": answer("The move was applied.", P + "Envelope", examples=example("moves", "Response"), links=follow("Next")),
             **_refusals(*_ALL)},
        ),
        f"/v1/games/{gid}/state": post(
            "state", f"The envelope of a {title} state, nothing applied",
            "Status, whose turn, legal moves and scores of the given state (with `as`, a seat's view); `events`\n"
            "is `[]`. An inconsistent state is refused with 422 `invalid_state`.\n\n"
            "**Resume** (sealed mode with a ledger): any older token of a match answers the *current* position\n"
            "(as the caller's key and `as` may see it) with a current token, rebuilt from the moves the ledger\n"
            "keeps, so a client that lost one reply or several gets back in. Forward only: no older position\n"
            "is shown. Once a finished match's moves are gone (`REFEREE_LEDGER_FINISHED_TTL`), its older tokens\n"
            "are 409 `token_superseded` and its final token answers the final position without `record`.\n",
            body(P + "StateRequest", "state"), DEFAULT_STATE_BODY,
            {"200": answer("The envelope of the state.", P + "Envelope"), **_refusals(*_ALL)},
        ),
        f"/v1/games/{gid}/check": post(
            "check", f"Whether a {title} move is legal, nothing applied",
            "`{\"legal\": true}`, or `{\"legal\": false, \"error\": <Problem>}` with the error that `moves` would\n"
            "answer, in the rules' order; a `move` object that is not a well-formed move of the game is judged\n"
            "too (`legal: false` with `invalid_move`, `unknown_move_type`, ..., as `moves` answers 422). A\n"
            "state that cannot be loaded (422 `invalid_state`, `stale_state`) or a malformed request is\n"
            "still an error response.\n",
            body(P + "MoveRequest", "check"), DEFAULT_STATE_BODY,
            {"200": answer("The verdict.", "CheckResult", cache=False, examples=example("check", "Response")),
             **_refusals(*_ALL)},
            as_seat=False,
        ),
        f"/v1/games/{gid}/replay": post(
            "replay", f"Judge a whole {title} move log, or a signed record",
            "A log: starts a game from `deck` or `seed` and applies `moves` in order, stopping at the first\n"
            "illegal one; a setup that cannot start is a 422; in sealed mode refused (403 `fixed_deck_forbidden`)\n"
            "unless the operator allows fixed decks. A record (`{\"record\": …}`, either mode): its signature is\n"
            "checked against `GET /v1/keys` (422 `bad_signature`), its commitment against its secret (422\n"
            "`bad_commitment`), every deal is rebuilt from the secret and the moves replayed; the verdict says\n"
            "whether the result equals the record's and is itself signed.\n",
            body(P + "ReplayRequest", "replay"), DEFAULT_REPLAY_BODY,
            {"200": answer("The verdict on the move log and the final envelope.", P + "ReplayResult"),
             **_refusals(*_NO_LEDGER)},
        ),
    }
