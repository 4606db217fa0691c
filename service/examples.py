"""openapi.yaml's worked examples of every game, written from the service's own answers.

Each game has the same five: a seeded ``new`` (seed 7, the default players) and its answer, the
first listed move of that position applied (``moves``) and its answer, the position read back
(``state``), the same move checked (``check``) and its verdict, and a one-move log replayed
(``replay``). The requests follow that recipe; the answers are what the service (open mode)
answers them, so an example can never say what the service does not:

    python3 -m service.examples          # rewrite openapi.yaml's examples in place
    python3 -m service.examples --check  # exit 1 if they differ from the service's answers

``tests/test_contract_generated.py`` runs the check. (The examples sit outside
``service.schemas.contract``, whose components come from the declarations alone: these need the
whole service to answer.)
"""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from .schemas import GameCodec

__all__ = ["example_move", "examples", "written"]

SEED: Final = 7
CLAIM_AT: Final = 1000
"""The client timestamp a real-time claim game's example move carries, as a client sends one."""


def example_move(codec: GameCodec, listed: dict[str, Any]) -> dict[str, Any]:
    """A listed move as a client sends it: a real-time claim game's carries its timestamp."""
    from .schemas.moves import CLAIM_TIMESTAMP

    return {**listed, "at": CLAIM_AT} if codec.moves.default_at.wire is CLAIM_TIMESTAMP else dict(listed)


def examples() -> dict[str, Any]:
    """Every game's examples, by component name (``SchnapsenNew``, ``SchnapsenNewResponse``, ...)."""
    from . import create_app
    from .schemas import SCHEMAS

    client = create_app({"SEAL_KEYS": [], "TESTING": True}).test_client()

    def post(game: str, op: str, body: dict[str, Any], status: int) -> Any:
        answer = client.post(f"/v1/games/{game}/{op}", json=body)
        if answer.status_code != status:
            raise RuntimeError(f"{game} {op}: {answer.status_code} {answer.get_data(as_text=True)[:300]}")
        return json.loads(answer.get_data())

    out: dict[str, Any] = {}
    for game, codec in SCHEMAS.items():
        P, title = codec.moves.prefix, codec.module.CONTRACT.title or codec.engine.NAME
        setup = {"players": codec.engine.DEFAULT_PLAYERS, "seed": SEED}
        opening = post(game, "new", setup, 201)
        move = example_move(codec, opening["legal_moves"][0])
        position = {"state": opening["state"], "move": move}
        out[P + "New"] = {"summary": f"{title}: a seeded game, default players", "value": setup}
        out[P + "NewResponse"] = {"summary": f"{title}: its first position (open mode, no `as`)", "value": opening}
        out[P + "Move"] = {"summary": f"{title}: the first listed move in that position", "value": position}
        out[P + "MoveResponse"] = {"summary": f"{title}: the position after it", "value": post(game, "moves", position, 200)}
        out[P + "State"] = {"summary": f"{title}: read the opening position back", "value": {"state": opening["state"]}}
        out[P + "Check"] = {"summary": f"{title}: is the first listed move legal?", "value": position}
        verdict = post(game, "check", position, 200)
        out[P + "CheckResponse"] = {"summary": "It is." if verdict == {"legal": True} else "It is not.", "value": verdict}
        out[P + "Replay"] = {"summary": f"{title}: a one-move log from the seeded deal", "value": {**setup, "moves": [move]}}
    return out


def written(document: str) -> str:
    """``document`` (openapi.yaml's text) with every game's examples rewritten in place."""
    from .schemas.contract import render

    return render(document, examples(), "examples")


def main(argv: list[str]) -> int:  # pragma: no cover - a maintainer's tool, run by its test
    from .schemas.contract import rewrite

    return rewrite(argv, written, "the examples differ from the service's answers; run python3 -m service.examples")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main(sys.argv[1:]))
