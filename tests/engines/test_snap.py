"""Snap engine: one rule per test, each citing ``docs/rules/snap.md``.

Positions come from the spec's decks D1 and D6 plus moves, or are built directly as ``State``
values with ``position`` (each passes ``check_state``).
"""

from __future__ import annotations

import copy
import random
from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.cards import Card
from service.cards.packs import full_52
from service.cards.shuffle import deal_deck
from service.engines import snap as S
from service.engines.base import BadMove, BadSetup, IllegalMove, InvalidState, is_listed
from service.engines.claims import Claim
from service.engines.snap import Flip, Member, Options, Phase, Snap, Snaps, State
from service.schemas import SCHEMAS
from tests.codes import section_8

PACK = full_52()
CODEC = SCHEMAS["snap"]
SECTION_8 = set(section_8("snap"))  # §8's table (tests/codes.py)
D1 = ("10D AC 4H 9D KC 3H 8D QC 2H 6D JC AS 5D 10C KS 4D 8C QS 3D 7C JS AH 6C 10S KH 5C 9S QH 4C 8S JH 3C 7S 10H "
      "2C 6S 9H AD 5S 8H QD 3S 6H JD 2S 5H 2D 7D 7H 9C KD 4S")
STALL_DECK = ("KC 7H 4C 3C 10S JC 4H 2H 3H 5C QS 8S 4S 2C 6C KD AH JD 8C 5H KS 10C 9S 7C 3D 7D 5S 10H QD AD 8D 7S "
              "JS 5D QC 10D 2D 9H QH 4D 9D 6S 3S 6H KH JH 9C 8H 2S AC 6D AS")


def cs(text: str) -> tuple[Card, ...]:
    return tuple(Card.parse(t) for t in text.split())


def new(players: int = 3, deck: str = D1, **options: Any) -> State:
    return S.new_game(Options(**options), players, cs(deck))


def six_flips(**options: Any) -> State:
    """§10 Example 1's position: seat 1 [4S 7H] (4), seat 2 [9C 2D] (5), seat 0 [KD 7D] (6)."""
    state = new(**options)
    for i, p in enumerate((1, 2, 0, 1, 2, 0)):
        state = S.apply(state, Flip(p, 1000 + 100 * i))
    return state


def snaps(*pairs: tuple[int, int]) -> Snaps:
    return Snaps(tuple(Claim(p, at) for p, at in pairs))


def refuse(state: State, move: Any, code: str) -> None:
    before = copy.deepcopy(state)
    with pytest.raises(IllegalMove) as info:
        S.apply(state, move)
    assert info.value.code == code, info.value.detail
    assert state == before
    assert not is_listed(move, S.legal_moves(state))


def position(
    stocks: Sequence[str],
    faceups: Sequence[str],
    seqs: Sequence[int | None],
    *,
    pool: str = "",
    pool_seq: int | None = None,
    last_flipper: int = 0,
    last_flip_at: int | None = None,
    options: Options | None = None,
    stall: int = 0,
) -> State:
    """A position built directly; cards not named go to the bottom of the last stock."""
    st_cards = [list(cs(s)) for s in stocks]
    fu = [cs(f) for f in faceups]
    used = {x for s in st_cards for x in s} | {x for f in fu for x in f} | set(cs(pool))
    st_cards[-1] += [x for x in PACK if x not in used]
    state = State(
        options=options or Options(),
        players=len(stocks),
        phase=Phase.PLAY,
        stocks=tuple(tuple(s) for s in st_cards),
        faceups=tuple(fu),
        faceup_seq=tuple(seqs),
        pool=cs(pool),
        pool_seq=pool_seq,
        flip_count=max([q for q in (*seqs, pool_seq) if q is not None], default=0),
        last_flipper=last_flipper,
        to_move=None,
        last_flip_at=last_flip_at,
        winners=None,
        last_result=None,
        stall=stall,
    )
    state = state._replace(to_move=S._next_flipper(state))
    S.check_state(state)
    return state


# --- §2-§4 setup -------------------------------------------------------------------------------


def test_setup_errors() -> None:
    """§2-§3: players 2..8, known options with good values (dealer a seat), the 52-card pack."""
    for players, code in ((1, "invalid_players"), (9, "invalid_players")):
        with pytest.raises(BadSetup) as info:
            new(players)
        assert info.value.code == code
    with pytest.raises(BadSetup) as info:
        new(3, dealer=3)
    assert info.value.code == "invalid_option"
    for bad in ({"stall_limit": 0}, {"stall_limit": "x"}, {"tie_rule": "coin"}, {"snap_takes": None}, {"colour": 1}):
        with pytest.raises(BadSetup) as info:
            CODEC.load_options(bad)
        assert info.value.code == "invalid_option", bad
    assert CODEC.load_options({"stall_limit": None}).stall_limit is None
    with pytest.raises(BadSetup) as info:
        S.new_game(Options(), 2, PACK[:-1])
    assert info.value.code == "invalid_deck"


@pytest.mark.parametrize("players", [2, 5, 8])
def test_deal_as_in_slapjack(players: int) -> None:
    """§4: the whole deck one card at a time from eldest, last card on top; nothing face up yet."""
    deck = deal_deck(PACK, players)
    state = S.new_game(Options(dealer=players - 1), players, deck)
    assert state.to_move == 0 and state.flip_count == 0 and state.last_flipper is None
    for s in range(players):
        assert state.stocks[s] == tuple(reversed(deck[s::players]))
    assert state.faceups == ((),) * players and state.pool == () and state.stall == 0


# --- §6.1 flips, §5 turn -----------------------------------------------------------------------


def test_flip_turns_top_card_onto_own_pile_with_a_sequence_number() -> None:
    """§6.1 effect 2: the card goes on one's own face-up pile; faceup_seq = flip number."""
    state = S.apply(new(), Flip(1, 1000))
    assert state.faceups[1] == cs("4S") and state.faceup_seq[1] == 1 and state.flip_count == 1
    assert state.last_flipper == 1 and state.to_move == 2 and state.last_flip_at == 1000 and state.stall == 1


def test_flip_checks_in_order() -> None:
    """§6.1 checks: invalid_player, player_out, not_your_turn, bad_timestamp, timestamp_out_of_order."""
    state = position(["", "2S 3S", "4S"], ["", "5S", "6S"], [None, 1, 2], last_flipper=2, last_flip_at=50)
    assert state.to_move == 1
    refuse(state, Flip(5), "invalid_player")
    refuse(state, Flip(0, -1), "player_out")
    refuse(state, Flip(2, -1), "not_your_turn")
    refuse(state, BadMove("bad_timestamp", "at", "flip", 2), "not_your_turn")
    refuse(state, Flip(1, -1), "bad_timestamp")
    refuse(state, Flip(1, 49), "timestamp_out_of_order")
    assert S.apply(state, Flip(1)).last_flip_at == 50


def test_empty_stock_recycle_or_stop() -> None:
    """§3 `empty_stock`, §6.1 step 1: recycle turns the face-up pile over at one's turn; stop skips
    the seat (it keeps its pile and may still call)."""
    stocks, faceups = ["", "2S", "4S"], ["3H 8C QD", "5S", "6S"]
    state = position(stocks, faceups, [1, 2, 3], last_flipper=2)
    assert state.to_move == 0
    after = S.apply(state, Flip(0, 1))
    assert after.faceups[0] == cs("3H") and after.stocks[0] == cs("8C QD")
    assert after.last_result is not None and after.last_result.recycled is True
    stop = position(stocks, faceups, [1, 2, 3], last_flipper=2, options=Options(empty_stock="stop"))
    assert stop.to_move == 1
    refuse(stop, Flip(0, 1), "not_your_turn")
    assert is_listed(Snap(0, 1), S.legal_moves(stop))


# --- §6.2 target group ------------------------------------------------------------------------------


def test_target_group_is_the_newest_match_oldest_first() -> None:
    """§6.2 / §9 #8: with several matches showing, the one revealed last is at stake."""
    state = position(["2S", "3S", "4S", "5S"], ["7H", "9C", "7D", "9D"], [1, 2, 3, 4], last_flipper=3)
    assert S.target_group(state) == (Member(2, 1), Member(4, 3))
    assert S.target_group(position(["2S", "3S"], ["7H", "8D"], [1, 2], last_flipper=1)) == ()


def test_pool_top_is_a_visible_top() -> None:
    """§6.2: the pool's top, tagged with pool_seq, can match."""
    state = position(["2S", "3S"], ["", "7C"], [None, 8], pool="4S 7D", pool_seq=6, last_flipper=1)
    assert S.target_group(state) == (Member(6, S.POOL), Member(8, 1))


# --- §6.3 claims, §6.4 ties, §6.5 wins ---------------------------------------------------------------


def test_call_checks_in_order() -> None:
    """§6.3: no_claims, then per claim invalid_player, bad_timestamp, duplicate_claim in list order,
    then player_out, then stale_claim; game_over first of all."""
    state = position(["", "2S", "4S"], ["", "5S", "6S"], [None, 1, 2], last_flipper=2, last_flip_at=50)
    refuse(state, Snaps(()), "no_claims")
    refuse(state, snaps((1, -1), (9, 60)), "bad_timestamp")
    refuse(state, snaps((9, 60), (1, -1)), "invalid_player")
    refuse(state, snaps((1, 60), (1, 61)), "duplicate_claim")
    refuse(state, snaps((1, 60), (0, 60)), "player_out")
    refuse(state, snaps((1, 40), (2, 49)), "stale_claim")
    refuse(state, Snap(1), "bad_timestamp")
    over = state._replace(phase=Phase.GAME_OVER, to_move=None, winners=(1,))
    refuse(over, Snap(1, 60), "game_over")


def test_seed_takes_the_first_matching_pile_plus_own() -> None:
    """§6.5 rule 2 / §9 #1-#3 (option `snap_takes: seed`): third party and flipper take the older
    pile, the older pile's owner takes the newer one; own face-up pile goes first in the packet."""
    base = six_flips()
    for caller, taken, packet in ((2, 1, "9C 2D 4S 7H"), (0, 1, "KD 7D 4S 7H"), (1, 0, "4S 7H KD 7D")):
        after = S.apply(base, Snap(caller, 1800))
        assert after.last_result is not None and after.last_result.taken_from == (taken,)
        assert after.stocks[caller][-4:] == cs(packet) and after.to_move == 1 and after.stall == 0


def test_both_takes_both_matching_piles_and_leaves_own() -> None:
    """§3 option `snap_takes: both`: both matching piles, oldest first; own unrelated pile stays."""
    after = S.apply(six_flips(snap_takes="both"), Snap(2, 1800))
    assert after.stocks[2][-4:] == cs("4S 7H KD 7D") and after.faceups[2] == cs("9C 2D")
    assert after.last_result is not None and after.last_result.own_pile is False


def test_ties_list_order_or_pool() -> None:
    """§3 option `tie_rule`, §6.4: equal earliest stamps: the first listed wins, or nobody (pool)."""
    move = snaps((2, 1700), (1, 1700))
    won = S.apply(six_flips(), move)
    assert won.last_result is not None and won.last_result.winner == 2
    tied, events = S.step(six_flips(tie_rule="pool"), move)
    assert tied.pool == cs("4S 7H KD 7D") and tied.pool_seq == 6 and tied.faceups[:2] == ((), ())
    assert events[0]["type"] == "tie_to_pool" and events[0]["tied"] == [2, 1] and tied.stall == 0
    untied = S.apply(six_flips(tie_rule="pool"), snaps((2, 1700), (1, 1650)))
    assert untied.last_result is not None and untied.last_result.winner == 1


def test_tie_with_the_pool_in_the_group_moves_only_player_piles() -> None:
    """§6.6: with the pool in G only the player piles go onto it; pool_seq = the last pile's seq."""
    state = position(["2S", "3S", "4S"], ["", "7C", "9H"], [None, 8, 7], pool="4H 7D", pool_seq=6, last_flipper=1,
                     last_flip_at=10, options=Options(tie_rule="pool"))
    after = S.apply(state, snaps((0, 20), (2, 20)))
    assert after.pool == cs("4H 7D 7C") and after.pool_seq == 8 and after.faceups[1] == ()


def test_winning_the_pool_takes_every_pile_of_the_group() -> None:
    """§6.5 rule 1: a Snap pool match wins the pool and every player pile in G."""
    state = position(["2S", "3S", "4S"], ["QS", "7C", "9H"], [9, 8, 7], pool="4H 7D", pool_seq=6, last_flipper=1,
                     last_flip_at=10, options=Options(snap_takes="both"))
    after = S.apply(state, Snap(2, 20))
    assert after.stocks[2][-3:] == cs("4H 7D 7C") and after.faceups[2] == cs("9H") and after.pool == ()
    assert after.last_result is not None and after.last_result.pool is True and after.last_result.taken_from == (1,)


claim_lists = st.lists(
    st.tuples(st.integers(0, 2), st.integers(1400, 1600)), min_size=1, max_size=3, unique_by=lambda c: c[0]
).map(lambda xs: [Claim(p, at) for p, at in xs])


@settings(max_examples=80, deadline=None, derandomize=True)
@given(claims=claim_lists, seed=st.integers(0, 1000))
def test_call_verdict_ignores_listing_order_and_stale_calls_never_win(claims: list[Claim], seed: int) -> None:
    """§6.3: with distinct stamps any listing order gives the same result; a call stamped before the
    last flip (1500) never wins."""
    base = six_flips()
    shuffled = list(claims)
    random.Random(seed).shuffle(shuffled)
    outcomes = []
    for listing in (claims, shuffled):
        try:
            outcomes.append(S.apply(base, Snaps(tuple(listing))))
        except IllegalMove as exc:
            assert exc.code == "stale_claim" and all(c.at < 1500 for c in claims)
            outcomes.append(None)
    if outcomes[0] is None:
        assert outcomes[1] is None
        return
    winner = outcomes[0].last_result.winner  # type: ignore[union-attr]
    assert next(c for c in claims if c.player == winner).at >= 1500
    if len({c.at for c in claims}) == len(claims):
        a, b = outcomes[0], outcomes[1]
        assert b is not None and b._replace(last_result=None) == a._replace(last_result=None)
        assert a.last_result is not None and b.last_result is not None
        assert a.last_result.order == b.last_result.order  # stale claims are listed in list order
        assert sorted(a.last_result.stale or ()) == sorted(b.last_result.stale or ())


# --- §6.7 false calls ----------------------------------------------------------------------------


def test_false_call_pays_each_other_seat_from_the_left() -> None:
    """§6.7 `pay_each` (default): one top stock card to the bottom of each other seat's stock."""
    state = S.apply(S.apply(new(), Flip(1, 1000)), Flip(2, 1100))
    after = S.apply(state, Snap(0, 1150))
    assert after.stocks[1][-1] == Card.parse("KD") and after.stocks[2][-1] == Card.parse("7D")
    assert after.last_result is not None and after.last_result.penalties == (S.Penalty(0, 1), S.Penalty(0, 2))


def test_pay_each_recycles_or_stops_and_skips_seats_without_cards() -> None:
    """§6.7: an empty stock is recycled first (recycle) or the payments stop (stop); seats with no
    cards get nothing; a caller left with nothing is out."""
    stocks, faceups = ["", "", "3S", "4S"], ["5H", "", "6S", "7S"]
    state = position(stocks, faceups, [1, None, 2, 3], last_flipper=3)
    after = S.apply(state, Snap(0, 1))
    assert after.last_result is not None and after.last_result.penalties == (S.Penalty(0, 2),)
    assert after.faceups[0] == () and after.stocks[0] == () and not S.has_cards(after, 0)
    stop = position(stocks, faceups, [1, None, 2, 3], last_flipper=3, options=Options(empty_stock="stop"))
    after = S.apply(stop, Snap(0, 1))
    assert after.last_result is not None and after.last_result.penalties == () and after.faceups[0] == cs("5H")


def test_false_call_to_pool_or_none() -> None:
    """§3 option `false_call`: `to_pool` puts the caller's face-up pile on the pool; `none` costs nothing."""
    state = S.apply(S.apply(new(false_call="to_pool"), Flip(1, 1000)), Flip(2, 1100))
    after = S.apply(state, snaps((1, 1200), (0, 1150)))
    assert after.pool == cs("4S") and after.pool_seq == 1 and after.faceups[1] == ()
    assert after.last_result is not None and after.last_result.penalties == (S.Penalty(1, None),)
    assert CODEC.dump_state(after)["last_result"]["penalties"] == [{"from": 1, "to": "pool"}]
    none = S.apply(S.apply(new(false_call="none"), Flip(1, 1000)), Flip(2, 1100))
    after = S.apply(none, Snap(0, 1150))
    assert after.stocks == none.stocks and after.stall == none.stall == 2


# --- §7 end ---------------------------------------------------------------------------------------


def test_game_ends_when_one_seat_holds_cards() -> None:
    """§7 rule 1: the last seat with cards wins, the pool notwithstanding; then every move is game_over."""
    state = position(["", "2S"], ["7H", "7C"], [1, 2], last_flipper=1, last_flip_at=5)
    end, events = S.step(state, Snap(1, 10))
    assert end.phase is Phase.GAME_OVER and end.winners == (1,) and end.to_move is None
    assert events[-1] == {"type": "game_over", "winner": [1], "reason": "all_cards"}
    assert S.outcome(end) is not None and S.legal_moves(end) == [] and S.status(end) == "finished"
    refuse(end, Flip(1), "game_over")


def test_game_ends_when_nobody_can_flip_and_nothing_matches() -> None:
    """§7 rule 2 / §9 #11 (with `stop`): the seats holding the most cards share the win."""
    state = position(["", "2S", "3S"], ["4H 5H", "6S", "7S"], [1, 2, 3], last_flipper=2, options=Options(empty_stock="stop"))
    state = state._replace(stocks=((), cs("2S"), tuple(state.stocks[2][:1])), faceups=(state.faceups[0] + state.stocks[2][1:], *state.faceups[1:]))
    S.check_state(state)
    assert state.to_move == 1
    state = S.apply(state, Flip(1, 1))
    assert state.to_move == 2
    end = S.apply(state, Flip(2, 2))
    assert end.phase is Phase.GAME_OVER and end.winners == (0,)


def test_stall_limit_ends_a_cycling_deal_and_null_never_does() -> None:
    """§3 `stall_limit`, §7 rule 3: the spec's two-player deck with `false_call: none` ends after
    1,040 flips, 26 cards each, both winning; with no limit it goes on."""
    state = new(2, STALL_DECK, false_call="none")
    flips = 0
    while state.phase is Phase.PLAY:
        if S.target_group(state):  # never happens on this deck: nobody calls anyway
            raise AssertionError("a pair showed")
        state = S.apply(state, Flip(state.to_move))  # type: ignore[arg-type]
        flips += 1
    assert flips == 1040 and state.winners == (0, 1) and S.scores(state)["totals"] == [26, 26]
    endless = new(2, STALL_DECK, false_call="none", stall_limit=None)
    for _ in range(2100):
        endless = S.apply(endless, Flip(endless.to_move))  # type: ignore[arg-type]
    assert endless.phase is Phase.PLAY and endless.stall == 2100


# --- §5 state, views ---------------------------------------------------------------------------------


def test_views_show_tops_and_counts_only() -> None:
    """§5: views replace stocks by counts and face-up piles by their tops and counts."""
    state = six_flips()
    view = S.view(state, 1)
    assert "stocks" not in view and "faceups" not in view and "pool" not in view
    assert view["faceup_tops"] == [Card.parse("7D"), Card.parse("7H"), Card.parse("2D")]
    assert view["faceup_counts"] == [2, 2, 2] and view["stock_counts"] == [15, 16, 15]


def test_views_show_the_pool_top() -> None:
    """§5: a view shows the pool's top card (the last card put on it) and its count."""
    state = position(["2S", "3S"], ["", "7C"], [None, 8], pool="4S 7D", pool_seq=6, last_flipper=1)
    view = S.view(state, 0)
    assert view["pool_top"] == Card.parse("7D") and view["pool_count"] == 2


def test_a_snap_event_names_the_slower_callers_without_the_winner() -> None:
    """§6.3 (docs/wire.md, Snap events): ``order`` is the judged order of the valid calls,
    ``slower`` the seats after the winner in it."""
    state = position(["2S", "3S", "4S"], ["7H", "7C", ""], [1, 2, None], last_flipper=1)
    _, events = S.step(state, snaps((2, 50), (0, 10), (1, 30)))
    (snap,) = [e for e in events if e["type"] == "snap"]
    assert snap["winner"] == 0 and snap["order"] == [0, 1, 2] and snap["slower"] == [1, 2]


def test_check_state_refuses_a_seat_out_of_range() -> None:
    """§5: ``last_flipper`` and ``to_move`` are seats 0..n-1 (or null); seat n is refused, not read."""
    with pytest.raises(InvalidState) as info:
        S.check_state(six_flips()._replace(last_flipper=3))
    assert "last_flipper" in info.value.errors, info.value.errors


def test_check_state_names_the_cards_at_fault_not_the_turn_they_would_imply() -> None:
    """§5, conventions.md: a state missing seat 1's cards (stock and face-up pile) is refused at
    ``stocks`` only; the turn is not judged on cards that are not all there (it would also blame
    ``to_move``, as seat 1 could no longer flip)."""
    state = six_flips()
    assert state.to_move == 1
    missing = state._replace(
        stocks=(state.stocks[0], (), state.stocks[2]),
        faceups=(state.faceups[0], (), state.faceups[2]),
        faceup_seq=(state.faceup_seq[0], None, state.faceup_seq[2]),
    )
    with pytest.raises(InvalidState) as info:
        S.check_state(missing)
    assert list(info.value.errors) == ["stocks"], info.value.errors


def test_check_state_refuses_play_when_nobody_can_flip_and_no_match_shows() -> None:
    """§7 rule 2 (empty_stock = stop): with every stock empty and no match showing the game is
    over, so a state still in play there is refused at ``phase``."""
    state = new(empty_stock="stop")
    for i, p in enumerate((1, 2, 0)):
        state = S.apply(state, Flip(p, 1000 + 100 * i))
    assert not S.target_group(state)
    stuck = state._replace(
        stocks=((), (), ()),
        faceups=tuple(tuple(reversed(st)) + fu for st, fu in zip(state.stocks, state.faceups, strict=True)),
        to_move=None,
    )
    assert not S.target_group(stuck)
    with pytest.raises(InvalidState) as info:
        S.check_state(stuck)
    assert list(info.value.errors) == ["phase"], info.value.errors


def test_check_state_refuses_play_at_the_stall_limit() -> None:
    """§7 rule 3: play ends when ``stall`` reaches ``stall_limit``; a state in play there is refused."""
    state = six_flips(stall_limit=50)
    S.check_state(state._replace(stall=49))
    with pytest.raises(InvalidState) as info:
        S.check_state(state._replace(stall=50))
    assert "stall" in info.value.errors, info.value.errors


def test_check_state_stops_at_a_bad_shape_before_reading_it() -> None:
    """§5, conventions.md: a state whose per-seat lists are short is refused as ``invalid_state``
    naming the list, never read past its end (which would be a server error)."""
    state = six_flips()
    with pytest.raises(InvalidState) as info:
        S.check_state(state._replace(faceup_seq=state.faceup_seq[:2]))
    assert list(info.value.errors) == ["faceup_seq"], info.value.errors


@pytest.mark.parametrize(
    ("change", "path"),
    [
        (lambda s: s._replace(stocks=(s.stocks[0][1:],) + s.stocks[1:]), "stocks"),
        (lambda s: s._replace(faceup_seq=(None, 4, 5)), "faceup_seq.0"),
        (lambda s: s._replace(to_move=2), "to_move"),
        (lambda s: s._replace(faceup_seq=(6, 6, 5)), "faceup_seq"),
        (lambda s: s._replace(phase=Phase.GAME_OVER), "to_move"),
    ],
)
def test_check_state_refuses_inconsistent_states(change: Any, path: str) -> None:
    """§5 invariant (52 cards) and the bookkeeping a real game keeps (sequence numbers, turn, end)."""
    with pytest.raises(InvalidState) as info:
        S.check_state(change(six_flips()))
    assert path in info.value.errors, info.value.errors


def test_every_section_8_code_is_provoked() -> None:
    """§8: each code of the table is what the service answers in one situation."""
    provoked: set[str] = set()
    for setup in (lambda: new(9), lambda: new(3, dealer=5), lambda: S.new_game(Options(), 2, PACK[1:])):
        with pytest.raises(BadSetup) as info:
            setup()
        provoked.add(info.value.code)
    with pytest.raises(InvalidState) as bad:
        S.check_state(new()._replace(to_move=0))
    provoked.add(bad.value.code)
    base = six_flips()
    out = position(["", "2S", "4S"], ["", "5S", "6S"], [None, 1, 2], last_flipper=2)
    over = S.apply(position(["", "2S"], ["7H", "7C"], [1, 2], last_flipper=1), Snap(1, 10))
    cases = [
        (base, CODEC.load_move({"type": "call", "player": 0}, 3)),
        (over, Snap(1, 20)),
        (base, Flip(3)),
        (out, Snap(0, 5)),
        (base, Flip(0)),
        (base, CODEC.load_move({"type": "snap", "player": 0, "at": -5}, 3)),
        (base, Flip(1, 10)),
        (base, CODEC.load_move({"type": "snaps"}, 3)),
        (base, snaps((0, 2000), (0, 2001))),
        (base, Snap(0, 10)),
    ]
    for state, move in cases:
        with pytest.raises(IllegalMove) as info:
            S.apply(state, move)
        provoked.add(info.value.code)
    assert provoked == SECTION_8, SECTION_8 ^ provoked


@pytest.mark.parametrize("players", range(2, 9))
def test_a_thousand_seeded_games_end_by_the_rules(players: int) -> None:
    """§7 over 1,008 seeded random games (144 for each of the 7 player counts, one case each) with
    random calls (true, false, simultaneous, stale) mixed into the flips: every game ends by one of
    §7's rules, and its winners hold the most cards; every 13th state keeps the cheaper generic
    invariants, and every 65th also its JSON round trip."""
    from tests.playouts import light_invariants, random_playout

    reasons: dict[str, int] = {}
    for seed in range(144):
        last = None
        for i, (_, _, after) in enumerate(random_playout(S, players, 20_000 + seed, max_moves=5000)):
            if i % 13 == 0:
                light_invariants(S, after, CODEC if i % 65 == 0 else None)
            last = after
        assert last is not None and last.phase is Phase.GAME_OVER and last.winners, (players, seed)
        S.check_state(last)
        held = S.cards_held(last)
        assert all(held[w] == max(held) for w in last.winners)
        rule = "all_cards" if len(last.winners) == 1 and held[last.winners[0]] + len(last.pool) == 52 else "other"
        reasons[rule] = reasons.get(rule, 0) + 1
    assert sum(reasons.values()) == 144 and reasons.get("all_cards", 0) > 144 // 2, reasons
