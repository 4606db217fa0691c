"""Numbers every client reads exactly: every integer the service writes lies within ±(2^53 − 1).

I-JSON (RFC 7493) asks for it so that JavaScript clients read and send back every value unchanged.
Random matches of every game with random options (extreme amounts included) check the engine's wire
forms on every state, and a sample goes through HTTP, where every integer of every response is
checked and every state the service returns is sent back and accepted. Stukolka and bragging, whose
amounts can grow without bound, end at their house limits.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterator
from typing import Any

import pytest
from marshmallow import ValidationError

from service.engines import ENGINES, bragging, stukolka
from service.engines.base import RulesError
from service.schemas import SCHEMAS
from service.schemas.common import to_wire
from tests.playouts import random_playout

LIMIT = 2**53 - 1



def integers(value: Any) -> Iterator[int]:
    """Every integer in a JSON-ready value (booleans are not integers)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, bool):
            continue
        if isinstance(item, int):
            yield item
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)


def random_options(engine: Any, players: int, rng: random.Random) -> Any:
    """Options drawn from the catalogue's ranges, with the extremes often (the largest stakes)."""
    for _ in range(50):
        values: dict[str, Any] = {}
        for name, info in engine.OPTION_INFO.items():
            if "enum" in info:
                values[name] = rng.choice(list(info["enum"]))
            elif info.get("type") == "boolean":
                values[name] = rng.random() < 0.5
            elif info.get("type") == "integer":
                low, high = int(info.get("minimum", 0)), int(info.get("maximum", 1000))
                step = int(info.get("multipleOf", 1))
                pick = rng.choice((low, high, rng.randint(low, high)))
                values[name] = max(low, pick - pick % step) if step > 1 else pick
                if info.get("nullable") and rng.random() < 0.4:
                    values[name] = None
        if "dealer" in values:
            values["dealer"] = rng.randrange(players)
        try:
            options = SCHEMAS[engine.GAME_ID].load_options(values)
            engine.new_game(options, players, engine.pack(options, players), 0)
        except (RulesError, ValidationError, ValueError):  # a combination the game refuses: draw again
            pass
        else:
            return options
    return engine.Options()




def _check_state(engine: Any, codec: Any, state: Any, where: str) -> None:
    for part in (codec.dump_state(state), to_wire(engine.scores(state, None))):
        big = [i for i in integers(part) if abs(i) > LIMIT]
        assert not big, f"{where}: integers beyond ±(2^53-1): {big[:3]}"


CASES = [(g, n) for g, e in ENGINES.items() for n in e.PLAYER_COUNTS[:: max(1, len(e.PLAYER_COUNTS) // 2)]]


@pytest.mark.parametrize(("game_id", "players"), CASES, ids=[f"{g}-{n}p" for g, n in CASES])
def test_every_integer_of_a_long_random_match_is_exact_in_json(game_id: str, players: int) -> None:
    engine, codec = ENGINES[game_id], SCHEMAS[game_id]
    rng = random.Random(f"{game_id}-{players}")
    for match in range(3):
        options = random_options(engine, players, rng)
        seed = rng.randrange(LIMIT + 1)
        last = None
        for index, (_, move, after) in enumerate(random_playout(engine, players, seed, options, max_moves=1500)):
            events_ok = [i for e in engine.step(_, move)[1] for i in integers(to_wire(e)) if abs(i) > LIMIT] if index % 50 == 0 else []
            assert not events_ok, f"{game_id} match {match}: event integers beyond the bound"
            if index % 7 == 0:
                _check_state(engine, codec, after, f"{game_id} match {match} move {index}")
            if index % 97 == 0:
                assert codec.load_state(codec.dump_state(after)) == after
            last = after
        if last is not None:
            _check_state(engine, codec, last, f"{game_id} match {match} end")


def _house_limit_match(engine: Any, players: int, options: Any, seed: int) -> Any:
    """The last state of a random match (run until it ends), checking every state's amounts."""
    codec = SCHEMAS[engine.GAME_ID]
    state = None
    for _, _, after in random_playout(engine, players, seed, options, max_moves=20_000):
        _check_state(engine, codec, after, f"{engine.GAME_ID} seed {seed}")
        state = after
    return state


def test_stukolka_house_limit_ends_a_game_whose_remizes_grow_without_bound() -> None:
    """§7.4 house limit: penalize mode, the whole pot as remiz, the largest stake paid by every seat."""
    options = dataclasses.replace(
        stukolka.Options(), stake=stukolka.MAX_STAKE - stukolka.MAX_STAKE % 3, stake_by="all",
        violations="penalize", remiz_limit=None,
    )
    ended = 0
    for seed in range(4):
        last = _house_limit_match(stukolka, 7, options, seed)
        outcome = stukolka.outcome(last)
        if outcome is not None:
            ended += 1
            assert outcome.reason == "house_limit" and stukolka.past_house_limit(last)
            assert stukolka.status(last) == "finished"
            stukolka.check_state(last)
            assert SCHEMAS["stukolka"].load_state(SCHEMAS["stukolka"].dump_state(last)) == last
    assert ended >= 1, "no random match reached the house limit"


def test_stukolka_deal_over_past_the_house_limit_is_an_invalid_state() -> None:
    """A state that went past the house limit without ending the game is refused."""
    options = dataclasses.replace(stukolka.Options(), stake=stukolka.MAX_STAKE - stukolka.MAX_STAKE % 3, stake_by="all",
                                  violations="penalize")
    for _, _, after in random_playout(stukolka, 7, 0, options, max_moves=20_000):
        if after.phase is stukolka.Phase.GAME_OVER:
            forged = after._replace(phase=stukolka.Phase.DEAL_OVER)
            with pytest.raises(stukolka.InvalidState) as info:
                stukolka.check_state(forged)
            assert "phase" in info.value.errors
            return
    pytest.fail("the match did not end")


def test_bragging_house_limit_ends_the_game_and_keeps_amounts_exact() -> None:
    """§7.5 house limit: a balance beyond ±10^15 ends the game at the end of that hand."""
    state = None
    options = dataclasses.replace(bragging.Options(), ante=1_000_000, hands=None)
    for _, _, after in random_playout(bragging, 2, 3, options, max_moves=200):
        state = after
        if after.phase is bragging.Phase.DEAL_OVER:
            break
    assert state is not None and state.phase is bragging.Phase.DEAL_OVER
    near = state._replace(balances=(bragging.HOUSE_LIMIT - 1, -(bragging.HOUSE_LIMIT - 1)))
    bragging.check_state(near)
    for _, _, after in random_playout_from(bragging, near, seed=5):
        _check_state(bragging, SCHEMAS["bragging"], after, "bragging near the limit")
        state = after
    assert bragging.outcome(state) is not None
    assert bragging.outcome(state).reason in ("house_limit",)  # type: ignore[union-attr]
    assert bragging.past_house_limit(state)


def random_playout_from(engine: Any, state: Any, seed: int, max_moves: int = 2000) -> Iterator[tuple[Any, Any, Any]]:
    """Random legal moves from ``state`` until the game ends (decks for new deals from the seed)."""
    from service.cards.shuffle import deal_deck
    from tests.playouts import fill_template, is_template

    rng = random.Random(seed)
    pack = engine.pack(state.options, engine.players(state))
    for k in range(max_moves):
        if engine.outcome(state) is not None:
            return
        legal = engine.legal_moves(state)
        move = legal[rng.randrange(len(legal))]
        if is_template(move):
            if getattr(move, "deck", False) is None:
                move = fill_template(move, deal_deck(pack, seed * 1000 + k))
            else:
                move = fill_template(move, (), bump=rng.choice((0, 1, 2)))
        after = engine.apply(state, move)
        yield state, move, after
        state = after


@pytest.mark.parametrize("game_id", sorted(ENGINES))
def test_every_response_integer_is_exact_and_every_state_comes_back(client: Any, game_id: str) -> None:
    """Through HTTP, from the largest seed: every integer of every response lies within ±(2^53 − 1),
    the service's states are the engine's, and every state it returns is accepted back."""
    engine, codec = ENGINES[game_id], SCHEMAS[game_id]
    rng = random.Random(game_id)
    players = engine.DEFAULT_PLAYERS
    options = random_options(engine, players, rng)
    wire_options = to_wire({f.name: getattr(options, f.name) for f in dataclasses.fields(engine.Options)})
    resp = client.post(f"/v1/games/{game_id}/new", json={"players": players, "options": wire_options, "seed": LIMIT})
    assert resp.status_code == 201, resp.get_json()
    env = resp.get_json()
    for index, (_, move, after) in enumerate(random_playout(engine, players, LIMIT, options, max_moves=150)):
        if index % 10 == 0:
            again = client.post(f"/v1/games/{game_id}/state", json={"state": env["state"]})
            assert again.status_code == 200, again.get_json()
        resp = client.post(f"/v1/games/{game_id}/moves", json={"state": env["state"], "move": to_wire(move)})
        assert resp.status_code == 200, resp.get_json()
        env = resp.get_json()
        assert not [i for i in integers(env) if abs(i) > LIMIT]
        assert env["state"] == codec.dump_state(after)
    if "seed" in env["state"]:
        assert env["state"]["seed"] == LIMIT, "the largest seed travels in the state unchanged"
