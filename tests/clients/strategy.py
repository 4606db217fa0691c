"""How the client tests play: per game, the table (players, options) and a move chooser.

Everything here works on the wire form only (the JSON of an envelope, which the client tests
check equals the generated model's ``to_dict()``), and only on what a seat may see: in sealed mode
``env`` is a seat's view. Nothing reads the engines; a client knows only the contract.

* ``PLANS``: players and options per game, picked so that a whole match stays short over HTTP
  (a low target, one deal or hand where the options offer it).
* ``actor(game, env)``: the seat that acts next (the seat to move; in the timed claim games the
  seat that claims when a claim is right).
* ``choose(game, env, legal, rng, clock)``: one concrete move among ``legal`` (the moves listed
  for that seat), templates filled in (docs/rules/conventions.md "Templates": a blind's ``min_amount``, a
  raise's ``min_to``, a discard's ``count``, a claim's missing ``at``).
* ``refusable(game, env, legal)``: a move the rules refuse (a listed move sent for a seat that is
  not to move), with the seat that sends it.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

Json = dict[str, Any]


@dataclass(frozen=True)
class Plan:
    players: int
    options: Json = field(default_factory=dict)
    seed: int = 0


PLANS: dict[str, Plan] = {
    "schnapsen": Plan(2, {}, seed=8),  # the default match: to 7 game points
    "seven_up": Plan(3, {"target": 3}, seed=11),
    "california_jack": Plan(2, {"target": 2}, seed=13),
    "yukon": Plan(2, {"target": 60}, seed=14),
    "stukolka": Plan(3, {"deals": 1}, seed=9),
    "bragging": Plan(3, {"hands": 2}, seed=7),
    "slapjack": Plan(2, {}, seed=9),
    "snap": Plan(2, {"stall_limit": 60}, seed=11),
    "russian_bank": Plan(2, {}, seed=0),  # about 300 moves: the longest match here
}
"""Seeds near the median match length of their plan (measured over 12 to 16 seeds), so that a
whole match stays cheap over HTTP; every plan is a legal table of its game."""

MAX_MOVES = 1500
"""A match not over after this many moves fails the test (none comes near it)."""


def seats_to_move(env: Json) -> list[int]:
    return [int(s) for s in env.get("to_move") or []]


def _rank(card: str | None) -> str | None:
    return None if card is None else card.split("/")[0][:-1]


def _slapjack_top(state: Json) -> str | None:
    if "center_top" in state:  # a view
        top = state["center_top"]
        return top.get("card") if isinstance(top, dict) else top
    center = state.get("center") or []
    return center[-1]["card"] if center else None


def _snap_tops(state: Json) -> list[str]:
    if "faceup_tops" in state:  # a view
        tops = list(state["faceup_tops"]) + [state.get("pool_top")]
    else:
        tops = [pile[-1] if pile else None for pile in state["faceups"]]
        pool = state.get("pool") or []
        tops.append(pool[-1] if pool else None)
    return [c for c in tops if c is not None]


def _claim_is_right(game: str, state: Json) -> bool:
    if game == "slapjack":
        return _rank(_slapjack_top(state)) == "J"
    ranks = [_rank(c) for c in _snap_tops(state)]
    return len(ranks) != len(set(ranks))


CLAIMER = 0
"""In the timed claim games seat 0 makes every right claim (and no false one), so that it wins fast."""


def actor(game: str, env: Json) -> int:
    """The seat that acts next."""
    if game in ("slapjack", "snap") and (_claim_is_right(game, env["state"]) or not seats_to_move(env)):
        return CLAIMER
    return seats_to_move(env)[0]


def fill(move: Json, state: Json, clock: int) -> Json:
    """A concrete move for a listed one (templates filled, claims and flips stamped)."""
    m = dict(move)
    if "min_amount" in m:
        m["amount"] = m.pop("min_amount")
    if "min_to" in m:
        m["to"] = m.pop("min_to")
    if m["type"] == "discard" and "count" in m:
        hand = state["hands"][m["player"]]
        m["cards"] = list(hand[: m.pop("count")])
    if m["type"] in ("slap", "snap", "flip") and state.get("game") in ("slapjack", "snap"):
        m["at"] = clock
    return m


def _russian_bank(env: Json, legal: Sequence[Json], rng: random.Random) -> Json:
    """Biased toward progress (uniform play moves cards back and forth for ever): foundations first,
    then loading the opponent, then building on the tableau; flip, discard or pass last."""
    tableau = env["state"]["tableau"]
    groups: dict[str, list[Json]] = {k: [] for k in ("found", "load", "own", "open", "shuffle", "end")}
    for m in legal:
        if m["type"] != "move":
            groups["end"].append(m)
        elif m["to"] == "foundation":
            groups["found"].append(m)
        elif m["to"].startswith("opponent"):
            groups["load"].append(m)
        elif not m["from"].startswith("tableau"):
            groups["own"].append(m)
        elif len(tableau[int(m["from"][8:])]) == 1 and tableau[int(m["to"][8:])]:
            groups["open"].append(m)
        else:
            groups["shuffle"].append(m)
    for name, chance in (("found", 1.0), ("load", 1.0), ("own", 0.9), ("open", 0.6), ("shuffle", 0.05)):
        if groups[name] and rng.random() < chance:
            return rng.choice(groups[name])
    return groups["end"][0] if groups["end"] else rng.choice(list(legal))


def _timed(game: str, env: Json, legal: Sequence[Json], rng: random.Random) -> Json:
    claim = "slap" if game == "slapjack" else "snap"
    claims = [m for m in legal if m["type"] == claim]
    if claims and (_claim_is_right(game, env["state"]) or not seats_to_move(env)):
        return claims[0]
    flips = [m for m in legal if m["type"] != claim]
    return flips[0] if flips else claims[0]


def _bragging(env: Json, legal: Sequence[Json], rng: random.Random) -> Json:
    """Mostly calls and checks, so that hands reach a showdown without endless raising."""
    calm = [m for m in legal if m["type"] in ("call", "check", "expose", "no_blind", "next_deal")]
    if calm and rng.random() < 0.85:
        return rng.choice(calm)
    return rng.choice(list(legal))


CHOOSERS: dict[str, Callable[[Json, Sequence[Json], random.Random], Json]] = {
    "russian_bank": _russian_bank,
    "bragging": _bragging,
    "slapjack": lambda env, legal, rng: _timed("slapjack", env, legal, rng),
    "snap": lambda env, legal, rng: _timed("snap", env, legal, rng),
}


def choose(game: str, env: Json, legal: Sequence[Json], rng: random.Random, clock: int) -> Json:
    """A concrete move among ``legal`` (the listed moves of one seat)."""
    if not legal:
        raise AssertionError(f"{game}: nothing listed for the seat to act in {env.get('to_move')}")
    pick = CHOOSERS.get(game, lambda env, legal, rng: rng.choice(list(legal)))
    return fill(pick(env, legal, rng), env["state"], clock)


def refusable(game: str, env: Json, legal: Sequence[Json], players: int) -> tuple[int, Json] | None:
    """(seat, move): a listed move of the seat to act, sent for a seat that is not to move."""
    waiting = [s for s in range(players) if s not in seats_to_move(env)]
    concrete = [m for m in legal if "player" in m and not {"min_amount", "min_to", "count"} & set(m)]
    if game in ("slapjack", "snap"):
        concrete = [m for m in concrete if m["type"] == "flip"]
    if not waiting or not concrete:
        return None
    seat = waiting[0]
    move = fill({**concrete[0], "player": seat}, env["state"], 0)
    return seat, move
