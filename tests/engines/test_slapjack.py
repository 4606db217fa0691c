"""Slapjack engine: one rule per test, each citing ``docs/rules/slapjack.md``.

Positions come from the pack-order deck of §10 plus moves, or are built directly as ``State``
values with ``position`` (every one passes ``check_state`` unless a test says otherwise).
"""

from __future__ import annotations

import copy
import hashlib
import random
from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.cards import Card
from service.cards.packs import full_52
from service.cards.shuffle import deal_deck, seeded_shuffle
from service.engines import slapjack as S
from service.engines.base import BadMove, BadSetup, IllegalMove, InvalidState, is_listed
from service.engines.claims import Claim, judge
from service.engines.slapjack import CenterCard, Flip, Options, Phase, Slap, Slaps, State, Status
from service.schemas import SCHEMAS
from tests.codes import section_8

PACK = full_52()
CODEC = SCHEMAS["slapjack"]
SECTION_8 = set(section_8("slapjack"))  # §8's table (tests/codes.py)


# --- helpers ----------------------------------------------------------------------------------


def cs(text: str) -> tuple[Card, ...]:
    return tuple(Card.parse(t) for t in text.split())


def new(players: int = 3, **options: Any) -> State:
    return S.new_game(Options(**options), players, PACK)


def run(state: State, *moves: Any) -> State:
    for move in moves:
        state = S.apply(state, move)
    return state


def flips(state: State, *stamps: int) -> State:
    """Flip in turn, stamped ``stamps``."""
    for at in stamps:
        assert state.to_move is not None
        state = S.apply(state, Flip(state.to_move, at))
    return state


def slaps(*pairs: tuple[int, int]) -> Slaps:
    return Slaps(tuple(Claim(p, at) for p, at in pairs))


def refuse(state: State, move: Any, code: str) -> None:
    """``move`` is refused with ``code``, is not listed, and the state is left as it was."""
    before = copy.deepcopy(state)
    with pytest.raises(IllegalMove) as info:
        S.apply(state, move)
    assert info.value.code == code, info.value.detail
    assert state == before
    assert not is_listed(move, S.legal_moves(state))


def position(
    stocks: Sequence[str],
    center: Sequence[tuple[str, int]] = (),
    *,
    to_move: int | None,
    status: Sequence[str] | None = None,
    last_flip_at: int | None = None,
    options: Options | None = None,
    phase: Phase = Phase.PLAY,
    winner: int | None = None,
    rest: str = "stock",
) -> State:
    """A position built directly; cards of the pack not named go to the bottom of the last stock
    (``rest="stock"``) or of the centre, as seat 0's (``rest="center"``)."""
    stock_cards = [list(cs(s)) for s in stocks]
    centre = tuple(CenterCard(Card.parse(t), p) for t, p in center)
    used = {x for s in stock_cards for x in s} | {cc.card for cc in centre}
    left = [x for x in PACK if x not in used]
    if rest == "stock":
        stock_cards[-1] += left
    else:
        centre = tuple(CenterCard(x, 0) for x in left) + centre
    if status is None:
        status = ["active" if s else "waiting" for s in stock_cards]
    state = State(
        options=options or Options(shuffle_won=False),
        players=len(stocks),
        phase=phase,
        stocks=tuple(tuple(s) for s in stock_cards),
        status=tuple(Status(x) for x in status),
        center=centre,
        to_move=to_move,
        last_flip_at=last_flip_at,
        shuffle_seed=0,
        shuffle_count=0,
        winner=winner,
        last_result=None,
    )
    S.check_state(state)
    return state


# --- §2, §3, §4 setup ------------------------------------------------------------------------


@pytest.mark.parametrize("players", [1, 9, 0])
def test_players_2_to_8(players: int) -> None:
    """§2: 2 to 8 players, else invalid_players."""
    with pytest.raises(BadSetup) as info:
        new(players)
    assert info.value.code == "invalid_players"


def test_dealer_must_be_a_seat() -> None:
    """§3: `dealer` is 0..players-1, else invalid_option; unknown options and bad values too."""
    with pytest.raises(BadSetup) as info:
        new(3, dealer=3)
    assert info.value.code == "invalid_option"
    for bad in ({"speed": 1}, {"next_after_capture": "winner"}, {"shuffle_won": "yes"}, {"false_slap_penalty": None}):
        with pytest.raises(BadSetup) as info:
            CODEC.load_options(bad)
        assert info.value.code == "invalid_option"


def test_deck_must_be_the_52_card_pack() -> None:
    """§3: a deck that is not exactly the pack is invalid_deck."""
    for deck in (PACK[:-1], PACK[:-1] + PACK[:1]):
        with pytest.raises(BadSetup) as info:
            S.new_game(Options(), 2, deck)
        assert info.value.code == "invalid_deck"


@pytest.mark.parametrize("players", range(2, 9))
def test_deal_one_at_a_time_from_eldest_last_card_on_top(players: int) -> None:
    """§4.2-4.3: seat s gets deck[k], deck[k+n], … (k = (s - eldest) mod n), the last one on top;
    the first 52 % n seats from eldest get one card more."""
    deck = deal_deck(PACK, players)
    for dealer in range(players):
        state = S.new_game(Options(dealer=dealer), players, deck)
        eldest = (dealer + 1) % players
        assert state.to_move == eldest
        for s in range(players):
            k = (s - eldest) % players
            assert state.stocks[s] == tuple(reversed(deck[k::players]))
            assert len(state.stocks[s]) == 52 // players + (k < 52 % players)
        assert state.center == () and set(state.status) == {Status.ACTIVE}


def test_dealer_option_moves_eldest() -> None:
    """§3 `dealer`: the seat left of the dealer flips first and gets the first card."""
    assert new(3).to_move == 1 and new(3, dealer=2).to_move == 0
    assert new(3, dealer=2).stocks[0][-1] == PACK[0]


def test_seed_is_the_shuffle_seed_else_drawn_from_the_deck() -> None:
    """§4.5: shuffle_seed = seed; without one (decision, wire.md) a value derived from the shuffled deck."""
    assert S.new_game(Options(), 2, PACK, seed=42).shuffle_seed == 42
    a = S.new_game(Options(), 2, PACK).shuffle_seed
    b = S.new_game(Options(), 2, deal_deck(PACK, 1)).shuffle_seed
    assert a != b and 0 <= a < 2**53 and a == S.new_game(Options(), 2, PACK).shuffle_seed
    # pinned: the canonical pack's derived seed (SHA-256 of "slapjack:seed:" and the deck, 53 bits: seeds stay exact in JSON), so
    # a refactor cannot silently change how unseeded games reshuffle
    assert a == 2325443819212688
    digest = hashlib.sha256(("slapjack:seed:" + " ".join(map(str, PACK))).encode("ascii")).digest()
    assert a == int.from_bytes(digest[:8], "big") & (2**53 - 1)


# --- §6.1 flip ---------------------------------------------------------------------------------


def test_flip_moves_top_card_to_centre_and_passes_left() -> None:
    """§6.1 effect 1, 3: the top stock card goes on the centre; the next seat left with cards flips."""
    state = run(new(3), Flip(1, 1000))
    assert state.center == (CenterCard(Card.parse("AC"), 1),) and state.to_move == 2
    assert state.last_flip_at == 1000
    assert state.last_result == S.Result("flip", player=1, card=Card.parse("AC"), recycled=False)


def test_flip_without_at_keeps_last_flip_at() -> None:
    """§6.1 effect 1: `at` is optional on flips; without it `last_flip_at` does not change."""
    state = run(new(3), Flip(1, 1000), Flip(2))
    assert state.last_flip_at == 1000 and len(state.center) == 2


def test_flip_at_must_not_go_back() -> None:
    """§6.1 check 5: a flip stamped before the last flip is timestamp_out_of_order; equal is fine."""
    state = run(new(3), Flip(1, 1000))
    refuse(state, Flip(2, 999), "timestamp_out_of_order")
    assert run(state, Flip(2, 1000)).last_flip_at == 1000


def test_flip_check_order_player_out_then_turn_then_timestamp() -> None:
    """§6.1 checks 2-5 in order: invalid_player, player_out, not_your_turn, bad_timestamp."""
    state = position(["", "2S 3S", "4S 5S"], [("JS", 0)], to_move=1, status=["out", "active", "active"], last_flip_at=10)
    refuse(state, Flip(3, 5), "invalid_player")
    refuse(state, Flip(0, -1), "player_out")
    refuse(state, Flip(2, -1), "not_your_turn")
    refuse(state, Flip(1, -1), "bad_timestamp")
    refuse(state, BadMove("bad_timestamp", "at", "flip", 2), "not_your_turn")
    refuse(state, BadMove("bad_timestamp", "at", "flip", 1), "bad_timestamp")


def test_flipping_last_card_makes_the_seat_wait_and_turns_skip_it() -> None:
    """§6.1 effect 2-3, §6.4: an empty stock means waiting; turns skip waiting seats."""
    state = position(["2S 3S", "4S", "5S 6S"], to_move=1)
    state = run(state, Flip(1, 1))
    assert state.status[1] is Status.WAITING and state.to_move == 2
    state = run(state, Flip(2, 2), Flip(0, 3))
    assert state.to_move == 2


def test_covered_jack_can_no_longer_be_captured() -> None:
    """§6.1 last paragraph: a flip on a jack covers it; a slap then is false."""
    state = run(new(3), Flip(1, 1000), Flip(2, 1100), Flip(0, 1200), Flip(1, 1300))  # JC on top
    assert state.center[-1].card == Card.parse("JC")
    state = run(state, Flip(2, 1400), Slap(0, 1500))
    assert state.last_result is not None and state.last_result.kind == "false_slap"


def test_recycle_when_nobody_has_a_stock_card_and_no_jack_on_top() -> None:
    """§6.1 effect 4 / §9 #12: the centre becomes the flipper's stock, oldest card on top."""
    state = position(["", "KS"], [("2S", 0), ("JD", 1)], to_move=1, status=["waiting", "active"], rest="center")
    state = S.apply(state, Flip(1, 5))
    assert state.center == () and state.to_move == 1 and state.status[1] is Status.ACTIVE
    assert len(state.stocks[1]) == 52 and state.stocks[1][-3:] == cs("2S JD KS") and state.status[0] is Status.WAITING
    assert state.last_result is not None and state.last_result.recycled is True


def test_nobody_flips_when_the_last_card_is_a_jack() -> None:
    """§6.1 effect 4 / §9 #13: to_move is null and only slaps are listed."""
    state = position(["", "JD"], to_move=1, status=["waiting", "active"], rest="center")
    state = S.apply(state, Flip(1, 5))
    assert state.to_move is None and S.to_move(state) == frozenset()
    assert {m.TYPE for m in S.legal_moves(state)} == {"slap"}
    refuse(state, Flip(1, 6), "not_your_turn")
    end = S.apply(state, Slap(0, 7))
    assert end.phase is Phase.GAME_OVER and end.winner == 0 and len(end.stocks[0]) == 52


# --- §6.2 claims --------------------------------------------------------------------------------


def test_claim_checks_in_order() -> None:
    """§6.2 checks 1-6 in order: game_over, no_claims, per claim (invalid_player, bad_timestamp,
    duplicate_claim) in list order, player_out, center_empty, stale_claim."""
    state = position(["", "2S 3S", "4S 5S"], to_move=1, status=["out", "active", "active"], last_flip_at=10)
    refuse(state, Slaps(()), "no_claims")
    refuse(state, slaps((1, -1), (7, 20)), "bad_timestamp")
    refuse(state, slaps((7, 20), (1, -1)), "invalid_player")
    refuse(state, slaps((1, 20), (1, 20), (0, 20)), "duplicate_claim")
    refuse(state, slaps((1, 20), (0, 20)), "player_out")
    refuse(state, Slap(1, 20), "center_empty")
    refuse(state, Slap(1, None), "bad_timestamp")
    state = run(state, Flip(1, 30))
    refuse(state, slaps((1, 20), (2, 29)), "stale_claim")
    over = state._replace(phase=Phase.GAME_OVER, to_move=None, winner=1, status=(Status.OUT, Status.ACTIVE, Status.OUT))
    refuse(over, Slap(1, 40), "game_over")
    refuse(over, Flip(1, 40), "game_over")
    refuse(state, BadMove("unknown_move_type", "no", "snap"), "unknown_move_type")


def test_a_claim_by_a_negative_seat_is_invalid_player() -> None:
    """§6.2 check 3: a claim's player is a seat 0..n-1; seat -1 is ``invalid_player`` (never read
    as the last seat)."""
    state = run(position(["2S 3S", "4S 5S", "6S 7S"], to_move=1), Flip(1, 10))
    refuse(state, slaps((-1, 20)), "invalid_player")
    refuse(state, Slap(-1, 20), "invalid_player")


def test_stale_claims_are_ignored_not_penalised() -> None:
    """§6.2 step 6 / §9 #4: a claim stamped before the last flip is listed as stale, costs nothing."""
    state = flips(new(3), 1000, 1100)  # QC(2) on top
    after = S.apply(state, slaps((0, 1050), (1, 1200)))
    assert after.last_result is not None
    assert after.last_result.stale == (0,) and after.last_result.order == (1,)
    assert after.stocks[0] == state.stocks[0]


def test_earliest_claim_wins_and_equal_stamps_keep_list_order() -> None:
    """§6.2 ordering / §9 #3: by `at`, ties by list order (the lowest hand)."""
    state = flips(new(4), 500)  # JC(1) on top
    won = S.apply(state, slaps((2, 950), (3, 900), (0, 900)))
    assert won.last_result is not None and won.last_result.winner == 3 and won.last_result.order == (3, 0, 2)


claim_lists = st.lists(
    st.tuples(st.integers(0, 3), st.integers(0, 60)), min_size=1, max_size=4, unique_by=lambda c: c[0]
).map(lambda xs: [Claim(p, at) for p, at in xs])


@settings(max_examples=200, deadline=None, derandomize=True)
@given(claims=claim_lists, last=st.one_of(st.none(), st.integers(0, 60)), seed=st.integers(0, 1000))
def test_verdict_does_not_depend_on_list_order_except_ties(claims: list[Claim], last: int | None, seed: int) -> None:
    """§6.2: the same claims in any order give the same verdict, unless stamps tie (then list order
    is the tie-break); a claim stamped before the last flip never wins."""
    shuffled = list(claims)
    random.Random(seed).shuffle(shuffled)
    a, b = judge(claims, last), judge(shuffled, last)
    assert sorted(a.stale) == sorted(b.stale)
    assert [c.at for c in a.order] == [c.at for c in b.order]
    if len({c.at for c in claims}) == len(claims):
        assert a.order == b.order
    for v in (a, b):
        assert all(last is None or c.at >= last for c in v.order)
        assert {c.player for c in v.order} | set(v.stale) == {c.player for c in claims}


@settings(max_examples=60, deadline=None, derandomize=True)
@given(claims=claim_lists, seed=st.integers(0, 1000))
def test_capture_winner_is_order_independent_and_never_stale(claims: list[Claim], seed: int) -> None:
    """§6.2-6.3 through the engine: with distinct stamps any listing order captures for the same
    seat; the winner's claim is never stamped before the last flip."""
    state = flips(new(4), 30)  # JC(1) on top, last_flip_at 30
    shuffled = list(claims)
    random.Random(seed).shuffle(shuffled)
    results = []
    for listing in (claims, shuffled):
        try:
            results.append(S.apply(state, Slaps(tuple(listing))))
        except IllegalMove as exc:
            assert exc.code == "stale_claim" and all(c.at < 30 for c in claims)
            results.append(None)
    if results[0] is None:
        assert results[1] is None
        return
    w = results[0].last_result.winner  # type: ignore[union-attr]
    assert next(c for c in claims if c.player == w).at >= 30
    if len({c.at for c in claims}) == len(claims):
        assert results[1] is not None and results[1].last_result.winner == w  # type: ignore[union-attr]


def test_a_batch_is_accepted_exactly_when_its_first_claimants_slap_template_is_filled() -> None:
    """§6.7 / CONVENTIONS "Batch claims": batches are not listed; the listed slap of the first claimant
    stands for them."""
    state = flips(new(3), 1000)
    legal = S.legal_moves(state)
    assert is_listed(slaps((2, 1001), (0, 999)), legal)
    assert not is_listed(slaps((2, 999), (0, 999)), legal)  # all stale
    assert not is_listed(Slap(1, None), legal) and is_listed(Slap(1, 1000), legal)
    assert is_listed(Flip(2), legal) and is_listed(Flip(2, 1000), legal) and not is_listed(Flip(2, 999), legal)


# --- §6.3 capture -------------------------------------------------------------------------------


def test_capture_puts_the_centre_under_the_stock_oldest_first() -> None:
    """§6.3 steps 1, 7: centre cards go under the winner's stock in centre order; the count is reported."""
    state = flips(new(3, shuffle_won=False), 1000, 1100, 1200, 1300)
    after, events = S.step(state, Slap(0, 1400))
    assert after.stocks[0][-4:] == cs("AC QC KC JC") and after.center == ()
    assert events[0]["type"] == "capture" and events[0]["cards"] == 4 and events[0]["slower"] == []


def test_shuffle_won_shuffles_the_whole_stock_with_the_seeded_shuffle() -> None:
    """§6.3 step 2, §6.6, option `shuffle_won`: true → §6.6 shuffle of (stock + won), counter +1."""
    base = S.new_game(Options(), 2, PACK, seed=42)
    state = flips(base, 10, 20, 30)
    after = S.apply(state, Slap(0, 95))
    unshuffled = state.stocks[0] + tuple(cc.card for cc in state.center)
    assert after.stocks[0] == seeded_shuffle(unshuffled, "slapjack", 42, 0) and after.shuffle_count == 1
    plain = S.apply(flips(S.new_game(Options(shuffle_won=False), 2, PACK, seed=42), 10, 20, 30), Slap(0, 95))
    assert plain.stocks[0] == unshuffled and plain.shuffle_count == 0


def test_shuffle_check_value() -> None:
    """§6.6 check value: seed 42, c 0, i 27 → digest 27628261bc7a4d78…, j = 12."""
    digest = hashlib.sha256(b"slapjack:42:0:27").digest()
    assert digest.hex().startswith("27628261bc7a4d78") and int.from_bytes(digest[:8], "big") % 28 == 12


def test_next_flipper_after_capture_left_of_capturer_or_rotation() -> None:
    """§6.3 step 5, option `next_after_capture`: left of the capturer, or left of the jack's player."""
    for option, want in (("capturer_left", 0), ("rotation", 2)):
        state = flips(new(4, shuffle_won=False, next_after_capture=option), 500)  # JC by seat 1
        assert S.apply(state, Slap(3, 600)).to_move == want
    # the jack's player is the last card's (seat 2), not the first card's (seat 0)
    for option, want in (("capturer_left", 1), ("rotation", 3)):
        state = position(["2S", "3S", "JH 4S", "5S"], [("6S", 0), ("7S", 1)], to_move=2,
                         options=Options(shuffle_won=False, next_after_capture=option))  # fmt: skip
        state = run(state, Flip(2, 10))
        assert S.apply(state, Slap(0, 20)).to_move == want, option


def test_capture_eliminates_waiting_seats_but_not_the_capturer() -> None:
    """§6.3 steps 3-4, §6.4: waiting seats become out when someone else captures; a waiting capturer
    is active again."""
    state = position(["2S", "", "JH 3S", "4S"], [("5S", 1)], to_move=2, status=["active", "waiting", "active", "active"])
    state = run(state, Flip(2, 10))
    won = S.apply(state, Slap(1, 20))
    assert won.status[1] is Status.ACTIVE and won.stocks[1] == cs("5S JH")
    lost = S.apply(state, Slap(3, 20))
    assert lost.status[1] is Status.OUT and lost.last_result is not None and lost.last_result.out == (1,)


def test_covering_a_jack_does_not_eliminate_a_waiting_seat() -> None:
    """§6.4 / §9 #10: only a capture won by another seat eliminates."""
    state = position(["2S", "", "JH 3S", "4S"], [("5S", 1)], to_move=2, status=["active", "waiting", "active", "active"])
    state = run(state, Flip(2, 10), Flip(3, 20))
    assert state.status[1] is Status.WAITING


def test_game_ends_when_one_seat_is_left_and_then_refuses_everything() -> None:
    """§6.3 step 6, §7: the capture leaving one seat not out ends the game; that seat holds all 52."""
    state = position(["", "JS"], to_move=1, status=["waiting", "active"], rest="center")
    state = run(state, Flip(1, 10))
    assert state.to_move is None
    end, events = S.step(state, Slap(1, 20))
    assert end.phase is Phase.GAME_OVER and end.winner == 1 and end.to_move is None
    assert S.status(end) == "finished" and S.outcome(end) is not None and S.outcome(end).winners == {1}  # type: ignore[union-attr]
    assert S.scores(end)["totals"] == [0, 52] and events[-1] == {"type": "game_over", "winner": [1]}
    assert S.legal_moves(end) == [] and S.to_move(end) == frozenset()
    refuse(end, Flip(1, 30), "game_over")


# --- §6.5 false slaps ----------------------------------------------------------------------------


def test_false_slap_gives_top_card_to_bottom_of_the_top_cards_player() -> None:
    """§6.5, option `false_slap_penalty: give_card` (default)."""
    state = flips(new(3), 1000, 1100)  # QC(2) on top
    after = S.apply(state, Slap(0, 1150))
    assert after.stocks[2][-1] == Card.parse("KC") and after.stocks[0][0] == Card.parse("10C")
    assert after.last_result is not None and after.last_result.penalties == (S.Penalty(0, 2, True),)


def test_false_slap_penalty_none_costs_nothing() -> None:
    """§3 option `false_slap_penalty: none`: recorded, unpaid."""
    state = flips(new(3, false_slap_penalty="none"), 1000, 1100)
    after = S.apply(state, Slap(0, 1150))
    assert after.stocks == state.stocks
    assert after.last_result is not None and after.last_result.penalties == (S.Penalty(0, 2, False),)


def test_false_slap_on_own_card_or_with_empty_stock_is_unpaid() -> None:
    """§6.5 / §9 #8-9: the top card's own player, and a waiting player, pay nothing."""
    state = position(["2S", "", "3S 4S"], [("5S", 2)], to_move=0, status=["active", "waiting", "active"], last_flip_at=0)
    after = S.apply(state, slaps((2, 1), (1, 1)))
    assert after.stocks == state.stocks and after.status == state.status
    assert after.last_result is not None and after.last_result.penalties == (S.Penalty(2, 2, False), S.Penalty(1, 2, False))


def test_false_slaps_in_judged_order_empty_the_payer_and_wake_the_receiver() -> None:
    """§6.5: each false slapper pays in turn; a payer left empty waits (and loses the turn), a
    waiting receiver becomes active."""
    state = position(["2S", "", "3S", "4S"], [("5S", 1)], to_move=0, status=["active", "waiting", "active", "active"],
                     last_flip_at=0)
    after = S.apply(state, slaps((2, 5), (0, 1)))
    assert after.last_result is not None and after.last_result.order == (0, 2)
    assert after.status[1] is Status.ACTIVE and after.stocks[1][:2] == cs("2S 3S")
    assert after.status[0] is Status.WAITING and after.status[2] is Status.WAITING
    assert after.to_move == 1


# --- §5 state, views, scores --------------------------------------------------------------------


def test_views_hide_every_face_down_card_and_the_seed() -> None:
    """§5 per-player view: stock counts, the top centre card and its count; no shuffle_seed."""
    state = flips(new(3), 1000, 1100)
    for seat in (None, 0, 1, 2):
        v = S.view(state, seat)
        assert "stocks" not in v and "shuffle_seed" not in v and "center" not in v
        assert v["stock_counts"] == [17, 17, 16] and v["center_count"] == 2
        assert v["center_top"] == CenterCard(Card.parse("QC"), 2)
    assert S.visible_cards(state, 0) == frozenset(cs("AC QC"))


def test_scores_are_cards_held() -> None:
    """§5 derived score / §7: totals = cards_held = stock sizes."""
    state = flips(new(3), 1000)
    assert S.scores(state) == {"totals": [17, 17, 17], "cards_held": [17, 17, 17]}


@pytest.mark.parametrize(
    ("change", "path"),
    [
        (lambda s: s._replace(stocks=(s.stocks[0][1:],) + s.stocks[1:]), "stocks"),
        (lambda s: s._replace(status=(Status.WAITING,) + s.status[1:]), "status.0"),
        (lambda s: s._replace(to_move=None), "to_move"),
        (lambda s: s._replace(phase=Phase.GAME_OVER), "to_move"),
        (lambda s: s._replace(options=Options(dealer=5)), "options.dealer"),
        (lambda s: s._replace(status=(Status.OUT, Status.OUT, Status.OUT)), "status.0"),
    ],
)
def test_check_state_enforces_the_invariants(change: Any, path: str) -> None:
    """§5 invariants: 52 cards, statuses fit the stocks, at least two seats in play, a sound turn."""
    with pytest.raises(InvalidState) as info:
        S.check_state(change(new(3)))
    assert path in info.value.errors, info.value.errors


def test_check_state_refuses_a_seat_to_move_out_of_range() -> None:
    """§5: ``to_move`` is a seat 0..n-1 or null; -1 and n are refused (never read as a seat)."""
    for seat in (-1, 3):
        with pytest.raises(InvalidState) as info:
            S.check_state(new(3)._replace(to_move=seat))
        assert list(info.value.errors) == ["to_move"], info.value.errors


def test_check_state_refuses_a_negative_flip_time() -> None:
    """§5: ``last_flip_at`` is null or a time in ms >= 0."""
    with pytest.raises(InvalidState) as info:
        S.check_state(run(new(3), Flip(1, 1000))._replace(last_flip_at=-1))
    assert "state" in info.value.errors, info.value.errors


def test_check_state_refuses_play_with_fewer_than_two_seats_in() -> None:
    """§5, §7: play goes on while at least two seats are not out; one seat left has won."""
    state = position(["", "", "2S"], to_move=2)
    with pytest.raises(InvalidState) as info:
        S.check_state(state._replace(status=(Status.OUT, Status.OUT, Status.ACTIVE)))
    assert "status" in info.value.errors, info.value.errors


def test_check_state_accepts_every_kind_of_last_result() -> None:
    """§5 ``last_result``: the states after a flip, a false slap and a capture are all consistent."""
    state = run(new(3), Flip(1, 1000))
    assert state.last_result is not None and state.last_result.kind == "flip"
    S.check_state(state)
    false_slap = S.apply(flips(new(3), 1000, 1100), Slap(0, 1150))
    assert false_slap.last_result is not None and false_slap.last_result.kind == "false_slap"
    S.check_state(false_slap)


def test_wire_state_round_trips_and_refuses_bad_shapes() -> None:
    """§5: the full state survives JSON; a malformed last_result is invalid_state."""
    state = S.apply(flips(new(3), 1000, 1100), Slap(0, 1150))
    wire = CODEC.dump_state(state)
    assert wire["last_result"] == {"kind": "false_slap", "order": [0], "stale": [], "penalties": [{"from": 0, "to": 2, "paid": True}]}
    assert CODEC.load_state(wire) == state
    wire["last_result"] = {"kind": "flip", "player": 0}
    with pytest.raises(InvalidState):
        CODEC.load_state(wire)


def test_parser_reports_the_first_problem_in_spec_order() -> None:
    """§6.2 step 3: claims are checked in list order; a slaps' top-level player is ignored."""
    parse = lambda m: CODEC.load_move(m, 3)
    assert parse({"type": "slaps", "claims": [{"player": 0, "at": "x"}, {"player": 9, "at": 1}]}).code == "bad_timestamp"
    assert parse({"type": "slaps", "claims": [{"player": 9, "at": 1}, {"player": 0}]}).code == "invalid_player"
    assert parse({"type": "slaps", "claims": []}).code == "no_claims"
    assert parse({"type": "slaps"}).code == "no_claims"
    assert parse({"type": "slaps", "claims": "all"}).code == "invalid_move"
    assert parse({"type": "slaps", "player": 2, "claims": [{"player": 1, "at": 5}]}) == Slaps((Claim(1, 5),))
    assert parse({"type": "slap", "player": 1, "at": 2**53}).code == "bad_timestamp"  # beyond JSON-safe integers
    assert parse({"type": "slap", "player": 1, "at": True}).code == "bad_timestamp"
    assert parse({"type": "flip", "player": 1, "at": 1.5}) == BadMove("bad_timestamp", parse({"type": "flip", "player": 1, "at": 1.5}).detail, "flip", 1)
    assert parse({"type": "flip", "player": 1, "card": "2S"}).code == "invalid_move"
    assert parse({"type": "hop", "player": 1}).code == "unknown_move_type"


def test_every_section_8_code_is_provoked() -> None:
    """§8: each code of the table is what the service answers in one situation."""
    provoked: set[str] = set()
    for setup in (lambda: new(9), lambda: new(3, dealer=3), lambda: S.new_game(Options(), 2, PACK[1:])):
        with pytest.raises(BadSetup) as info:
            setup()
        provoked.add(info.value.code)
    with pytest.raises(InvalidState) as bad:
        S.check_state(new(3)._replace(to_move=None))
    provoked.add(bad.value.code)
    start = new(3)
    one = flips(start, 1000)
    out = position(["", "2S", "3S"], [("4S", 1)], to_move=1, status=["out", "active", "active"])
    over = position(["", "JS"], to_move=1, status=["waiting", "active"], rest="center")
    over = S.apply(S.apply(over, Flip(1, 1)), Slap(1, 2))
    cases = [
        (start, CODEC.load_move({"type": "hop", "player": 0}, 3)),
        (over, Slap(1, 5)),
        (start, Flip(4)),
        (out, Flip(0)),
        (start, Flip(0)),
        (one, CODEC.load_move({"type": "slap", "player": 0}, 3)),
        (one, Flip(2, 999)),
        (one, CODEC.load_move({"type": "slaps", "claims": []}, 3)),
        (one, slaps((0, 1001), (0, 1002))),
        (start, Slap(0, 1)),
        (one, Slap(0, 999)),
    ]
    for state, move in cases:
        with pytest.raises(IllegalMove) as info:
            S.apply(state, move)
        provoked.add(info.value.code)
    assert provoked == SECTION_8, SECTION_8 ^ provoked


# --- many seeded games ----------------------------------------------------------------------------


@pytest.mark.parametrize("players", range(2, 9))
def test_a_thousand_seeded_games_end_with_one_seat_holding_the_pack(players: int) -> None:
    """§7 over 1,008 seeded random games (144 for each of the 7 player counts, one case each), with
    random claims (true, false, simultaneous, stale) mixed into the flips (tests/playouts.py): every
    game ends by the rules with the winner holding all 52 cards; every 11th state keeps the cheaper
    generic invariants (``light_invariants``), and every 55th also its JSON round trip. The full
    invariant suite (tests/test_engine_contract.py) runs on fewer games: it costs more per state."""
    from tests.playouts import light_invariants, random_playout

    games = 0
    for seed in range(144):
        last = None
        for i, (_, _, after) in enumerate(random_playout(S, players, 10_000 + seed, max_moves=5000)):
            if i % 11 == 0:
                light_invariants(S, after, CODEC if i % 55 == 0 else None)
            last = after
        assert last is not None and last.phase is Phase.GAME_OVER, (players, seed)
        S.check_state(last)
        assert last.winner is not None and len(last.stocks[last.winner]) == 52
        games += 1
    assert games == 144
