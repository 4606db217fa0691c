"""Hidden-card scan of HTTP responses: the contract client runs it on every response of the suite.

A response that shows a seat's view (``?as=<seat>``) or the public view (sealed mode without
``as``) must not name a card that view may not see. The full state behind the response is
recovered from what the test has (issue 8, robustness 3):

- sealed mode: the response's token, unsealed with the app's keys (and the request's token for
  the position before a move);
- open mode: the request's full state (``state``), and for ``moves`` that state with the move
  applied by the engine.

Allowed cards are those ``visible_cards`` grants the viewer after the move, or before it (an event
may name a card the viewer saw in a hand and that is now gone), exactly as the engine-level scan
of tests/test_engine_contract.py; keys and tokens are not looked at.
"""

from __future__ import annotations

from typing import Any

from flask import Flask

from service.engines import ENGINES
from service.schemas import SCHEMAS
from service.sealing import BadToken
from tests.playouts import card_strings

SCANNED = {"new", "moves", "state", "replay"}
NOT_SHOWN = frozenset({"token", "seat_keys", "table_key", "record"})
"""Not scanned: keys and tokens, and a finished sealed match's signed ``record``, which lists every
move (discards included) on purpose: once finished, the revealed secret rebuilds every deal anyway."""
scanned_responses = 0


def _seat(raw: str | None) -> int | None:
    return int(raw) if raw is not None and raw.isascii() and raw.isdigit() and len(raw) <= 3 else None


def _unseal(app: Flask, game: str, token: Any) -> Any:
    sealer = app.extensions["referee.sealer"]
    if sealer is None or not isinstance(token, str):
        return None
    try:
        _, packed = sealer.unseal(game, token)
    except BadToken:
        return None
    return SCHEMAS[game].unpack(packed)


def hidden_cards_shown(app: Flask, path: str, query_as: str | None, request_json: Any, body: Any) -> set[str]:
    """The hidden cards a 2xx response body names (empty when nothing can be checked)."""
    global scanned_responses
    parts = path.strip("/").split("/")
    if len(parts) != 4 or parts[:2] != ["v1", "games"] or parts[2] not in ENGINES or parts[3] not in SCANNED:
        return set()
    game, endpoint = parts[2], parts[3]
    engine, codec = ENGINES[game], SCHEMAS[game]
    envelope = body.get("final") if endpoint == "replay" else body
    if not isinstance(envelope, dict) or "state" not in envelope:
        return set()
    follow = query_as == "to_move"  # the viewer is the seat the answer names (its single to_move), else public
    seat = envelope["state"].get("seat") if isinstance(envelope["state"], dict) else None
    viewer = (seat if isinstance(seat, int) else None) if follow else _seat(query_as)
    sealed = app.extensions["referee.sealer"] is not None
    before = after = None
    request_json = request_json if isinstance(request_json, dict) else {}
    if sealed:
        after = _unseal(app, game, envelope.get("token"))
        if endpoint == "moves":
            before = _unseal(app, game, request_json.get("token"))
    elif (viewer is not None or follow) and endpoint in ("state", "moves"):
        try:
            before = codec.load_state(request_json["state"])
            after = before
            if endpoint == "moves":
                players = engine.players(before)
                after = engine.apply(before, codec.load_move(request_json["move"], players))
        except Exception:  # noqa: BLE001 - a NextDeal without a deck etc.: the service filled it, we can't
            return set()
    if after is None or (viewer is None and not sealed and not follow):
        return set()
    options = getattr(after, "options", engine.Options())
    pack_names = frozenset(str(c) for c in engine.pack(options, engine.players(after)))
    allowed = {str(c) for c in engine.visible_cards(after, viewer)}
    if before is not None:
        allowed |= {str(c) for c in engine.visible_cards(before, viewer)}
    scanned_responses += 1
    shown = {k: v for k, v in envelope.items() if k not in NOT_SHOWN}
    if isinstance(shown.get("state"), dict):  # options name no card's place (Yukon's removed_two: "2C")
        shown["state"] = {k: v for k, v in shown["state"].items() if k != "options"}
    return set(card_strings(shown, pack_names, keys=True)) - allowed
