"""Stukolka engine: one rule per test, each citing ``docs/rules/stukolka.md``.

Positions come from decks built to deal given hands (``start``) and moves written as short text
(``"tap 1"``, ``"ex 2 QD 9H"``, ``"play 0 10H"``).
"""

from __future__ import annotations

import copy
import dataclasses
import json
import random
from collections.abc import Iterator
from typing import Any

import pytest
from flask.testing import FlaskClient

from service.cards import Card
from service.cards.packs import full_52
from service.engines import stukolka as S
from service.engines.base import BadMove, BadSetup, IllegalMove, InvalidState, event_view, is_listed
from service.engines.moves import NextDeal
from service.engines.stukolka import Exchange, Options, Pass, Phase, Play, PlayOption, State, Tap
from service.schemas import SCHEMAS
from service.schemas.common import to_wire
from tests.codes import section_8
from tests.playouts import random_playout

CODEC = SCHEMAS["stukolka"]
PROVOKED: set[str] = set()
"""Every code a test below saw the engine (or the edge) refuse with; checked against §8 last."""

# One xdist worker runs this whole file, in order: PROVOKED is gathered across its tests, and
# test_every_section_8_code_was_provoked reads it last (split over two workers it saw only half).
pytestmark = pytest.mark.xdist_group("stukolka-rules")


# --- helpers ----------------------------------------------------------------------------------


def c(text: str) -> Card:
    return Card.parse(text)


def cs(text: str) -> tuple[Card, ...]:
    return tuple(Card.parse(t) for t in text.split())


def deck_for(hands: list[str], turnup: str, stock: str = "", dealer: int = 0, pack: int = 52) -> tuple[Card, ...]:
    """A deck dealing ``hands[seat]`` (3 cards each, in dealt order) and ``turnup`` (§4)."""
    n = len(hands)
    order = [(dealer + 1 + i) % n for i in range(n)]
    dealt = [cs(h) for h in hands]
    deck: list[Card] = [c("2S")] * (3 * n)
    for r in range(3):
        for i, seat in enumerate(order):
            deck[r * n + i] = dealt[seat][r]
    head = [c(turnup), *cs(stock)]
    used = set(deck) | set(head)
    rest = [x for x in S.PACKS[pack] if x not in used]
    out = tuple(deck + head + rest)
    assert len(set(out)) == len(out) == pack
    return out


def start(hands: list[str], turnup: str, stock: str = "", **options: Any) -> State:
    opts = Options(**options)
    return S.new_game(opts, len(hands), deck_for(hands, turnup, stock, opts.dealer, opts.pack))


def m(text: str) -> Any:
    """``"tap 1"``, ``"pass 2"``, ``"ex 1 2C"``, ``"play 0 AH"``, ``"next 1"``."""
    kind, player, *cards = text.split()
    p = int(player)
    if kind == "tap":
        return Tap(p)
    if kind == "pass":
        return Pass(p)
    if kind == "ex":
        return Exchange(p, cs(" ".join(cards)))
    if kind == "play":
        return Play(p, c(cards[0]))
    assert kind == "next"
    return NextDeal(p, tuple(full_52()))


def run(state: State, *moves: str) -> State:
    for text in moves:
        state = S.apply(state, m(text))
        S.check_state(state)
    return state


def refuse(state: State, move: Any, code: str) -> None:
    """``move`` is refused with ``code``, is not listed, and the state is left as it was."""
    before = copy.deepcopy(state)
    with pytest.raises(IllegalMove) as info:
        S.apply(state, m(move) if isinstance(move, str) else move)
    assert info.value.code == code, info.value.detail
    assert state == before
    PROVOKED.add(code)
    if code not in ("game_over", "invalid_deck"):
        assert not is_listed(m(move) if isinstance(move, str) else move, S.legal_moves(state))


def setup_error(code: str, players: int = 4, deck: Any = None, **options: Any) -> None:
    with pytest.raises(BadSetup) as info:
        opts = Options(**options)
        S.new_game(opts, players, deck if deck is not None else S.pack(Options(pack=options.get("pack", 52))))
    assert info.value.code == code
    PROVOKED.add(code)


def plays(state: State) -> set[str]:
    return {str(mv.card) for mv in S.legal_moves(state)}


def all_tap_to_play(state: State) -> State:
    """Every seat taps and stands pat: the play phase, eldest to lead."""
    for p in S._order(state.dealer, state.players):
        state = S.apply(state, Tap(p))
    while state.phase is Phase.EXCHANGE:
        state = S.apply(state, Exchange(state.to_move, ()))  # type: ignore[arg-type]
    return state


# Three-player hands used below (dealer 0: eldest 1, then 2, dealer last).
H3 = ["7C 4D 6S", "AH 9C 5S", "KC 3C 8D"]


# --- §3 options and §2 players ----------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 8, 0])
def test_players_must_be_3_to_7(players: int) -> None:
    """§2, §3: 3 to 7 players, else invalid_players."""
    setup_error("invalid_players", players=players)


@pytest.mark.parametrize(
    "options",
    [{"stake": 4}, {"stake": 0}, {"stake": -3}, {"pack": 40}, {"dealer": 4}, {"max_exchange": 4}, {"stake_by": "x"},
     {"remiz_limit": 0}, {"deals": 0}, {"colour": "red"}, {"turnup_ace_king_lead": 1}, {"stake": "3"}],
)
def test_options_out_of_range_are_refused(client: FlaskClient, options: dict[str, Any]) -> None:
    """§3: an unknown option or a value out of range is invalid_option (stake: a multiple of 3; dealer a seat)."""
    r = client.post("/v1/games/stukolka/new", json={"players": 4, "options": options})
    assert r.status_code == 422 and r.json["code"] == "invalid_option", r.json
    PROVOKED.add("invalid_option")


def test_dealer_option_must_be_a_seat_of_the_game() -> None:
    """§3: ``dealer`` is 0..players-1 (checked against the player count)."""
    setup_error("invalid_option", players=3, dealer=3)
    assert S.new_game(Options(dealer=3), 4, S.pack(Options())).dealer == 3


def test_deck_must_be_the_chosen_pack() -> None:
    """§4, §8: a deck that is not exactly the chosen pack is invalid_deck (a 52-card deck in a 36-card game too)."""
    setup_error("invalid_deck", deck=full_52()[:-1])
    setup_error("invalid_deck", deck=full_52()[:-1] + full_52()[:1])
    setup_error("invalid_deck", deck=full_52(), pack=36)
    assert len(S.new_game(Options(pack=36), 4, S.PACK_36).stock) == 35 - 12


# --- §4 the deal --------------------------------------------------------------------------------


def test_deal_three_rounds_from_the_eldest_then_turnup_then_stock() -> None:
    """§4: rounds of one card to order = [eldest .. dealer]; deck[3n] turned up; the stock is the rest, top first."""
    deck = full_52()
    st = S.new_game(Options(dealer=2), 5, deck)
    order = [3, 4, 0, 1, 2]
    for i, seat in enumerate(order):
        assert st.hands[seat] == (deck[i], deck[5 + i], deck[10 + i])
    assert st.turnup == deck[15] and S.trump(st) is deck[15].suit
    assert st.stock == deck[16:] and len(st.stock) == 51 - 15
    assert st.phase is Phase.DECLARE and st.to_move == 3


def test_dealer_pays_the_stake_by_default() -> None:
    """§4 step 2, §3 stake_by = dealer: only the dealer pays; the pot is the stake."""
    st = S.new_game(Options(dealer=1, stake=9), 4, full_52())
    assert st.pot == 9 and st.balances == (0, -9, 0, 0) and st.carry == 0


def test_stake_by_all_every_seat_pays() -> None:
    """§3 stake_by = all, §7.3: 4 players, stake 3 → pot 12, third 4, remiz 12."""
    st = start(["2S 3S 4S", "AH 9C 5S", "KC 3C 8D", "7C 4D 6S"], "2H", stake_by="all")
    assert st.pot == 12 and st.balances == (-3, -3, -3, -3)
    st = run(st, "tap 1", "pass 2", "tap 3", "tap 0", "ex 1", "ex 3", "ex 0", "play 1 AH", "play 3 7C", "play 0 2S")
    st = run(st, "play 1 9C", "play 3 4D", "play 0 3S", "play 1 5S", "play 3 6S", "play 0 4S")
    r = st.last_result
    assert r is not None and (r.third, r.remiz) == (4, 12)
    assert st.balances == (-3 - 12, -3 + 8, -3, -3 + 4) and st.carry == 12


def test_remainder_of_an_indivisible_pot_is_carried() -> None:
    """§7.3, §9.14: pot 16 → each trick 5, one unit carried."""
    st = start(["7C 9D 6S", "AH 9C 5S", "KC 3C 8D"], "2H")
    st = st._replace(pot=16, balances=(-16, 0, 0))
    S.check_state(st)
    st = run(all_tap_to_play(st), "play 1 AH", "play 2 3C", "play 0 6S", "play 1 9C", "play 2 KC", "play 0 7C",
             "play 2 8D", "play 0 9D", "play 1 5S")
    assert st.last_result is not None and st.last_result.third == 5
    assert st.carry == 1 and st.balances == (-16 + 5, 5, 5)


# --- §6 order of checks -----------------------------------------------------------------------


def test_check_order_unknown_type_then_player_then_phase_then_turn() -> None:
    """§6: game_over, then unknown_move_type / invalid_player, wrong_phase, not_your_turn, the move's own checks."""
    st = start(H3, "2H")
    for move, code in [
        (BadMove("unknown_move_type", "?", "dance", None), "unknown_move_type"),
        (BadMove("invalid_player", "?", "play", None), "invalid_player"),
        (BadMove("invalid_move", "?", "play", 2), "invalid_move"),
        (Play(2, c("KC")), "wrong_phase"),
        (Exchange(1, ()), "wrong_phase"),
        (NextDeal(1, full_52()), "wrong_phase"),
        (Tap(2), "not_your_turn"),
        (Pass(0), "not_your_turn"),
    ]:
        refuse(st, move, code)


def test_edge_reports_parse_codes_in_order() -> None:
    """§6 step 2 through the edge: unknown_move_type before invalid_player; a bad card after the turn check."""
    st = start(H3, "2H")
    parse = CODEC.load_move
    assert parse({"type": "dance", "player": 9}, 3).code == "unknown_move_type"
    assert parse({"type": "tap", "player": 3}, 3).code == "invalid_player"
    assert parse({"type": "exchange", "player": 1}, 3).code == "invalid_move"
    assert parse({"type": "exchange", "player": 1, "discard": "AH"}, 3).code == "invalid_move"
    assert parse({"type": "play", "player": 1, "card": "AH", "violation": "nope"}, 3).code == "invalid_move"
    bad_card = parse({"type": "exchange", "player": 1, "discard": ["ZZ"]}, 3)
    assert bad_card.code == "invalid_card"
    refuse(st, bad_card, "wrong_phase")  # the phase comes first
    st = run(st, "tap 1", "tap 2", "tap 0")
    refuse(st, parse({"type": "exchange", "player": 2, "discard": ["ZZ"]}, 3), "not_your_turn")
    refuse(st, bad_card, "invalid_card")
    for code in ("unknown_move_type", "invalid_player", "invalid_move"):
        PROVOKED.add(code)


def test_a_card_outside_the_36_card_pack_is_invalid_card() -> None:
    """§2, CONVENTIONS: with pack = 36 a 2..5 is not a card of the game (invalid_card, not card_not_in_hand)."""
    st = all_tap_to_play(start(["6S 7S 8S", "AH 9C 6C", "KC 7C 8D"], "6H", pack=36))
    refuse(st, "play 1 2S", "invalid_card")
    refuse(st, "play 1 9C", "must_lead_trump_ace")


# --- §6.1 declaring ---------------------------------------------------------------------------


def test_declarations_go_round_from_the_eldest_to_the_dealer() -> None:
    """§6.1: turn order eldest first, dealer last; each declares once."""
    st = start(["2S 3S 4S", "AH 9C 5S", "KC 3C 8D", "7C 4D 6S"], "2H", dealer=2)
    assert [st.to_move] == [3]
    st = run(st, "tap 3")
    assert st.to_move == 0 and st.declarations == (None, None, None, S.Declaration.TAP)
    refuse(st, "tap 3", "not_your_turn")
    st = run(st, "pass 0", "tap 1")
    assert st.to_move == 2 and st.phase is Phase.DECLARE


def test_passed_players_are_never_on_turn() -> None:
    """§6.1, §6.4: a passed seat is skipped in buying and in every trick."""
    st = run(start(["2S 3S 4S", "AH 9C 5S", "KC 3C 8D", "7C 4D 6S"], "2H"), "tap 1", "pass 2", "tap 3", "tap 0")
    assert st.in_play == (1, 3, 0)
    st = run(st, "ex 1")
    assert st.to_move == 3
    refuse(st, "ex 2", "not_your_turn")
    st = run(st, "ex 3", "ex 0", "play 1 AH")
    assert st.to_move == 3
    refuse(st, "play 2 KC", "not_your_turn")


# --- §6.3 resolving the declarations --------------------------------------------------------------


def test_everybody_passes_the_pot_is_carried() -> None:
    """§6.3 T empty: no play, carry = pot, kind all_passed."""
    st = run(start(H3, "2H"), "pass 1", "pass 2", "pass 0")
    assert st.phase is Phase.DEAL_OVER and st.carry == 3 and st.balances == (-3, 0, 0)
    assert st.last_result is not None and st.last_result.kind is S.Kind.ALL_PASSED


def test_only_the_dealer_taps_and_takes_the_pot() -> None:
    """§6.3 T = [dealer]: the dealer receives the pot without play."""
    st = run(start(H3, "2H", dealer=1), "pass 2", "pass 0", "tap 1")
    assert st.balances == (0, 0, 0) and st.carry == 0
    assert st.last_result is not None and (st.last_result.kind, st.last_result.winner) == (S.Kind.DEALER_TAKES, 1)


def test_lone_tapper_dealer_defends_by_default() -> None:
    """§6.3 default: one non-dealer taps, the dealer passes → in_play = [x, dealer], defender = dealer."""
    st = run(start(H3, "2H"), "pass 1", "tap 2", "pass 0")
    assert st.in_play == (2, 0) and st.defender == 0 and st.phase is Phase.EXCHANGE and st.to_move == 2


def test_lone_tapper_wins_pot_option() -> None:
    """§3 lone_tapper = wins_pot: the lone tapper takes the pot without play."""
    st = run(start(H3, "2H", lone_tapper="wins_pot"), "pass 1", "tap 2", "pass 0")
    assert st.phase is Phase.DEAL_OVER and st.balances == (-3, 0, 3) and st.carry == 0
    assert st.last_result is not None and (st.last_result.kind, st.last_result.winner) == (S.Kind.LONE_TAPPER_TAKES, 2)


def test_two_tappers_play_without_a_defender() -> None:
    """§6.3: two or more tappers: in_play = T in order, defender null (the dealer may be out)."""
    st = run(start(H3, "2H"), "tap 1", "tap 2", "pass 0")
    assert st.in_play == (1, 2) and st.defender is None


def test_defender_is_never_remized_and_his_tricks_stay_in_the_pot() -> None:
    """§7.1 steps 2-3: a defender who takes no trick pays nothing; his tricks' money is carried."""
    st = run(start(H3, "2H"), "tap 1", "pass 2", "pass 0", "ex 1", "ex 0")
    st = run(st, "play 1 AH", "play 0 7C", "play 1 9C", "play 0 4D", "play 1 5S", "play 0 6S")
    assert S.tricks_won(st) == [1, 2, 0]
    assert st.balances == (-3, 2, 0) and st.carry == 1
    assert st.last_result is not None and st.last_result.remized == ()


def test_defender_taking_no_trick_is_not_remized() -> None:
    """§6.3, §7.1: the defender cannot be remized even with no trick."""
    st = run(start(["7C 4D 2S", "AH KH QH", "KC 3C 8D"], "2H"), "tap 1", "pass 2", "pass 0", "ex 1", "ex 0")
    st = run(st, "play 1 AH", "play 0 2S", "play 1 KH", "play 0 4D", "play 1 QH", "play 0 7C")
    assert st.balances == (-3, 3, 0) and st.carry == 0
    assert st.last_result is not None and st.last_result.remized == () and st.last_result.winnings == (S.Winning(1, 3),)


# --- §6.2 buying ------------------------------------------------------------------------------


def test_exchange_draws_from_the_top_of_the_stock_in_in_play_order() -> None:
    """§6.2: discard, then the same number from the top of the stock; seats in in_play order."""
    st = run(start(H3, "2H", stock="QS JS 10S"), "tap 1", "tap 2", "tap 0", "ex 1 9C 5S")
    assert st.hands[1] == cs("AH QS JS") and st.stock[0] == c("10S") and st.discards[1] == cs("9C 5S")
    assert st.exchanged == (None, 2, None) and st.to_move == 2


def test_exchange_discard_order_does_not_matter() -> None:
    """§6.2: a discard is a set of cards; any order is the listed move."""
    st = run(start(H3, "2H"), "tap 1", "tap 2", "tap 0")
    assert is_listed(Exchange(1, cs("5S 9C")), S.legal_moves(st))
    assert S.apply(st, Exchange(1, cs("5S 9C"))) == S.apply(st, Exchange(1, cs("9C 5S")))


def test_exchange_legal_list_is_every_subset_up_to_the_limit() -> None:
    """§6.4 legal list: one exchange per subset of the hand with ≤ min(max_exchange, stock) cards."""
    st = run(start(H3, "2H"), "tap 1", "tap 2", "tap 0")
    assert len(S.legal_moves(st)) == 8
    st = run(start(H3, "2H", max_exchange=1), "tap 1", "tap 2", "tap 0")
    assert sorted(len(mv.discard) for mv in S.legal_moves(st)) == [0, 1, 1, 1]


def test_exchange_refusals_in_order() -> None:
    """§6.2 checks in order: duplicate_card, card_not_in_hand, too_many_cards, not_enough_stock."""
    st = run(start(H3, "2H", max_exchange=2), "tap 1", "tap 2", "tap 0")
    refuse(st, Exchange(1, cs("AH AH KC")), "duplicate_card")
    refuse(st, Exchange(1, cs("AH 9C KC")), "card_not_in_hand")
    refuse(st, Exchange(1, cs("AH 9C 5S")), "too_many_cards")
    low = st._replace(stock=st.stock[:1], discards=(st.stock[1:], (), ()))
    refuse(low, Exchange(1, cs("AH 9C")), "not_enough_stock")
    assert {len(mv.discard) for mv in S.legal_moves(low)} == {0, 1}


def test_not_enough_stock_with_seven_players_and_36_cards() -> None:
    """§6.2, §9.7: 7 players on the 36-card pack: 14 stock cards; later buyers can ask only for what is left."""
    st = S.new_game(Options(pack=36), 7, S.PACK_36)
    for p in S._order(0, 7):
        st = S.apply(st, Tap(p))
    for p in st.in_play[:4]:
        st = S.apply(st, Exchange(p, st.hands[p]))
    assert len(st.stock) == 2 and st.to_move == 5
    refuse(st, Exchange(5, st.hands[5]), "not_enough_stock")
    assert max(len(mv.discard) for mv in S.legal_moves(st)) == 2


def test_max_exchange_zero_skips_buying() -> None:
    """§3 max_exchange = 0: no buying phase; play starts at once with in_play[0]."""
    st = run(start(H3, "2H", max_exchange=0), "tap 1", "pass 2", "tap 0")
    assert st.phase is Phase.PLAY and st.to_move == 1 and st.leader == 1


# --- §6.4 lead obligations ----------------------------------------------------------------------


def test_L1_leader_with_the_trump_ace_must_lead_it() -> None:
    """§6.4 L1 (seed rule 8): holding the trump ace, lead it."""
    st = all_tap_to_play(start(H3, "2H"))
    assert plays(st) == {"AH"}
    refuse(st, "play 1 9C", "must_lead_trump_ace")


def test_L2_leader_with_trump_king_and_queen_leads_the_king() -> None:
    """§6.4 L2: no trump ace, trump K and Q: lead the K."""
    st = all_tap_to_play(start(["7C 4D 6S", "KH QH 5S", "KC 3C 8D"], "2H"))
    assert plays(st) == {"KH"}
    refuse(st, "play 1 QH", "must_lead_trump_king")


def test_rule_10_after_using_the_king_the_queen_is_free() -> None:
    """§6.4 rule 10: once K or Q is used, he no longer holds both: any lead."""
    st = all_tap_to_play(start(["7C 4D 6S", "KH QH 5S", "KC 3C 8D"], "2H"))
    st = run(st, "play 1 KH", "play 2 KC", "play 0 7C")
    assert st.to_move == 1 and plays(st) == {"QH", "5S"}


def test_lead_rules_bind_every_leader_rule_9() -> None:
    """§6.4, §9.8 (seed rule 9): L1/L2 are checked on every lead, also for a later trick's winner."""
    st = all_tap_to_play(start(["AH 4D 6S", "KC 9C 5S", "2C 3C 8D"], "2H"))
    st = run(st, "play 1 KC", "play 2 2C", "play 0 AH")  # seat 0 trumps and wins
    assert st.to_move == 0
    assert st.hands[0] == cs("4D 6S")
    st2 = all_tap_to_play(start(["2C 4D 6S", "9C AH 5S", "KC 3C 8D"], "2H"))
    st2 = run(st2, "play 1 AH", "play 2 8D", "play 0 2C")
    assert plays(st2) == {"9C", "5S"}  # no trump left: free lead
    st3 = all_tap_to_play(start(["KH QH 2S", "AC 9C 5S", "2C 3C 8D"], "2H"))
    st3 = run(st3, "play 1 9C", "play 2 2C", "play 0 KH")  # seat 0 trumps in with KH: now holds only QH
    assert st3.to_move == 0 and plays(st3) == {"QH", "2S"}
    st4 = all_tap_to_play(start(["KH QH 2H", "AC 9C 5S", "2C 3C 8D"], "3H"))
    st4 = run(st4, "play 1 AC", "play 2 2C", "play 0 2H")
    assert st4.to_move == 0 and plays(st4) == {"KH"}  # the later leader holds K+Q: L2 applies
    refuse(st4, "play 0 QH", "must_lead_trump_king")


@pytest.mark.parametrize("on", [False, True])
def test_L3_turnup_ace_king_lead_option(on: bool) -> None:
    """§6.4 L3, §3 turnup_ace_king_lead: turn-up = trump ace → a leader with the trump K must lead it (only with the option)."""
    st = all_tap_to_play(start(["7C 4D 6S", "KH 9C 5S", "KC 3C 8D"], "AH", turnup_ace_king_lead=on))
    if on:
        assert plays(st) == {"KH"}
        refuse(st, "play 1 9C", "must_lead_trump_king")
    else:
        assert plays(st) == {"KH", "9C", "5S"}


# --- §6.4 follow obligations ------------------------------------------------------------------


def test_F1a_must_follow_suit() -> None:
    """§6.4 F1a (seed rule 11): holding the led suit, follow it."""
    st = run(all_tap_to_play(start(["7C 4D 6S", "9C 3D 5S", "KC 3C 8D"], "2H")), "play 1 9C", "play 2 KC")
    assert plays(st) == {"7C"}
    refuse(st, "play 0 4D", "must_follow_suit")


def test_F1b_must_beat_with_the_suit_led() -> None:
    """§6.4 F1b: a led-suit card that beats the winning card must be played if held."""
    st = all_tap_to_play(start(["7C 4D 6S", "QC 9C 5S", "KC 3C 8D"], "2H"))
    st = run(st, "play 1 9C")
    assert plays(st) == {"KC"}
    refuse(st, "play 2 3C", "must_beat")
    refuse(st, "play 2 8D", "must_follow_suit")  # the first failing row gives the code


def test_F1_when_the_trick_is_trumped_any_card_of_the_suit() -> None:
    """§6.4 note, §9.10: when the trick is trumped, any led-suit card is legal."""
    st = all_tap_to_play(start(["KC 2C 6S", "9C 3D 5S", "2H 8D 4S"], "3H"))
    st = run(st, "play 1 9C", "play 2 2H")
    assert plays(st) == {"KC", "2C"}


def test_F2_void_must_trump_with_a_trump_that_beats() -> None:
    """§6.4 F2 (seed rule 12): void in the led suit and holding a trump that beats W: play such a trump."""
    st = all_tap_to_play(start(["QH 4H 6S", "9C 3D 5S", "2H 8D 4S"], "3H"))
    st = run(st, "play 1 9C", "play 2 2H")
    assert plays(st) == {"QH", "4H"}
    refuse(st, "play 0 6S", "must_trump")


def test_F2_overtrump_only_when_possible_else_any_card() -> None:
    """§6.4 F2/F3, §9.11: a trump that cannot beat W is not required; any card, a lower trump included."""
    st = all_tap_to_play(start(["3H 4D 6S", "9C 3D 5S", "KH 8D 4S"], "2H"))
    st = run(st, "play 1 9C", "play 2 KH")
    assert plays(st) == {"3H", "4D", "6S"}


def test_F1_led_trump_must_be_followed_and_beaten() -> None:
    """§6.4 F1 with trumps led: follow with a trump, beating if possible."""
    st = all_tap_to_play(start(["QH 4H 6S", "9H 3D 5S", "2H 8D 4S"], "3H"))
    st = run(st, "play 1 9H")
    assert plays(st) == {"2H"}
    st = run(st, "play 2 2H")
    assert plays(st) == {"QH"}
    refuse(st, "play 0 4H", "must_beat")


def test_trick_winner_is_highest_trump_else_highest_of_suit_led() -> None:
    """§6.4: the highest trump wins; without trumps the highest card of the suit led; winner leads next."""
    st = all_tap_to_play(start(["AS 4D 6C", "9C 3D 5S", "2H 8D 4S"], "3H"))
    st = run(st, "play 1 5S", "play 2 4S", "play 0 AS")
    assert st.completed_tricks[-1].winner == 0 and st.to_move == 0 and st.leader == 0
    st = run(st, "play 0 4D", "play 1 3D", "play 2 8D")
    assert st.completed_tricks[-1].winner == 2


# --- §6.5 violations ----------------------------------------------------------------------------


def test_penalize_lists_every_card_with_its_violation() -> None:
    """§6.4 legal list, §6.5: in penalize mode every card is listed with violation null or the code."""
    st = all_tap_to_play(start(H3, "2H", violations="penalize"))
    listed = {str(mv.card): mv.violation for mv in S.legal_moves(st)}
    assert listed == {"AH": None, "9C": "must_lead_trump_ace", "5S": "must_lead_trump_ace"}
    assert all(isinstance(mv, PlayOption) for mv in S.legal_moves(st))
    assert to_wire(S.legal_moves(st)[0]) == {"type": "play", "player": 1, "card": "AH", "violation": None}
    assert is_listed(Play(1, c("9C")), S.legal_moves(st))


def test_penalize_one_remiz_per_offender_however_many_breaches() -> None:
    """§6.5, §7.1 step 4: two breaches by one seat cost one penalty remiz; the offender keeps trick money."""
    st = all_tap_to_play(start(["7C 4D 6S", "AH 9C 5S", "KC 3C 8S"], "2H", violations="penalize"))
    st = run(st, "play 1 9C", "play 2 3C", "play 0 7C")  # seat 1 skips the ace, seat 2 fails to beat
    st = run(st, "play 1 5S", "play 2 8S", "play 0 6S")  # seat 1 skips the ace again; seat 2 wins
    st = run(st, "play 2 KC", "play 0 4D", "play 1 AH")
    assert [(v.player, v.code, v.trick) for v in st.violations] == [
        (1, "must_lead_trump_ace", 1), (2, "must_beat", 1), (1, "must_lead_trump_ace", 2)]
    assert S.tricks_won(st) == [0, 2, 1]
    r = st.last_result
    assert r is not None and r.penalized == (1, 2) and r.remized == (0,)
    assert st.balances == (-3 - 3, 2 - 3, 1 - 3) and st.carry == 9


def test_penalize_charges_the_defender_too() -> None:
    """§7.1 step 4: the defender pays a penalty remiz for a breach (though never the no-trick remiz)."""
    st = run(start(["7C 4D 6S", "AH 9C 5S", "KC 3C 8D"], "2H", violations="penalize"), "tap 1", "pass 2", "pass 0")
    st = run(st, "ex 1", "ex 0", "play 1 AH", "play 0 6S")
    st = run(st, "play 1 9C", "play 0 4D", "play 1 5S", "play 0 7C")  # the defender does not follow clubs
    r = st.last_result
    assert r is not None and r.penalized == (0,) and r.remized == ()
    assert st.balances == (-3 - 3, 3, 0) and st.carry == 3


def test_refuse_mode_refuses_what_penalize_accepts() -> None:
    """§3 violations: the same card is refused in refuse mode and accepted with a record in penalize mode."""
    refuse(all_tap_to_play(start(H3, "2H")), "play 1 9C", "must_lead_trump_ace")
    st = S.apply(all_tap_to_play(start(H3, "2H", violations="penalize")), m("play 1 9C"))
    assert st.violations == (S.Violation(1, "must_lead_trump_ace", 1, c("9C")),)


# --- §7 settlement and end ------------------------------------------------------------------------


def test_remiz_limit_caps_the_remiz() -> None:
    """§3 remiz_limit, §7.1: R = min(pot, limit)."""
    def deal(**options: Any) -> State:
        st = start(["7C 4D 6S", "AH KH QH", "KC 3C 8D"], "2H", stake=9, **options)
        return run(all_tap_to_play(st), "play 1 AH", "play 2 KC", "play 0 7C", "play 1 KH", "play 2 3C",
                   "play 0 4D", "play 1 QH", "play 2 8D", "play 0 6S")
    assert deal().carry == 18 and deal().balances == (-18, 9, -9)
    limited = deal(remiz_limit=4)
    assert limited.carry == 8 and limited.balances == (-13, 9, -4)


def test_next_deal_by_the_left_neighbour_pot_is_carry_plus_stakes() -> None:
    """§6.6, §7.2: the dealer's left neighbour deals; pot = carry + stakes; a wrong deck is invalid_deck."""
    st = run(start(H3, "2H"), "pass 1", "pass 2", "pass 0")
    assert S.to_move(st) == frozenset({1}) and st.to_move is None
    assert S.legal_moves(st) == [NextDeal(1)]
    refuse(st, NextDeal(2, full_52()), "not_your_turn")
    refuse(st, NextDeal(1, full_52()[:-1]), "invalid_deck")
    st = run(st, "next 1")
    assert (st.dealer, st.deal_number, st.pot, st.balances) == (1, 2, 6, (-3, -3, 0)) and st.to_move == 2


@pytest.mark.parametrize(("deals", "over"), [(None, False), (1, True), (2, False)])
def test_deals_option_ends_the_game_when_nothing_is_carried(deals: int | None, over: bool) -> None:
    """§3 deals, §7.4: game_over once deal_number ≥ N and carry = 0; winner = highest balance."""
    st = run(start(H3, "2H", deals=deals, dealer=1, stake_by="all"), "pass 2", "pass 0", "tap 1")
    assert st.balances == (-3, 6, -3)
    assert (st.phase is Phase.GAME_OVER) is over
    if over:
        assert S.outcome(st) == S.Outcome(frozenset({1}), "deal_limit") and S.status(st) == "finished"
        assert S.to_move(st) == frozenset() and S.legal_moves(st) == []
        refuse(st, "next 2", "game_over")
        refuse(st, "tap 2", "game_over")


def test_deal_limit_waits_for_a_deal_without_carry() -> None:
    """§7.4: with deals = 1, a deal that leaves a carry does not end the game (Loo custom)."""
    st = run(start(H3, "2H", deals=1), "pass 1", "pass 2", "pass 0")
    assert st.phase is Phase.DEAL_OVER and st.carry == 3
    st = run(st, "next 1", "pass 2", "pass 0", "tap 1")
    assert st.phase is Phase.GAME_OVER and S.outcome(st) == S.Outcome(frozenset({1}), "deal_limit")


def test_tied_leaders_all_win() -> None:
    """CONVENTIONS: a finished game lists every seat with the highest balance."""
    st = run(start(H3, "2H", deals=1, stake_by="all"), "pass 1", "pass 2", "tap 0")
    assert st.balances == (6, -3, -3)
    st2 = run(start(H3, "2H", deals=1), "tap 1", "pass 2", "pass 0", "ex 1", "ex 0")
    st2 = run(st2, "play 1 AH", "play 0 7C", "play 1 9C", "play 0 4D", "play 1 5S", "play 0 6S")
    assert st2.phase is Phase.DEAL_OVER  # the defender's trick carried 1
    tie = S.new_game(Options(deals=1), 3, full_52())._replace(phase=Phase.GAME_OVER)
    assert S.outcome(tie) == S.Outcome(frozenset({1, 2}), "deal_limit")


# --- money -------------------------------------------------------------------------------------


@pytest.mark.parametrize("players", S.PLAYER_COUNTS)
def test_money_is_conserved_over_1000_random_deals(players: int) -> None:
    """§2 invariant: sum(balances) + pot = 0 during a deal, + carry after it; no unit created or lost,
    over ≥ 1,000 seeded random deals per player count and every option."""
    variants = [{}, {"violations": "penalize", "remiz_limit": 9, "lone_tapper": "wins_pot"}, {"stake_by": "all", "stake": 6},
                {"pack": 36, "max_exchange": 1, "turnup_ace_king_lead": True}, {"max_exchange": 0, "remiz_limit": 3}]
    deals = 0
    seed = 0
    while deals < 1000:
        opts = Options(deals=2, dealer=seed % players, **variants[seed % len(variants)])
        for before, _, after in random_playout(S, players, 10_000 + seed, opts, max_moves=5000):
            assert S.money(after) == 0 and sum(after.balances) + (after.carry if S.status(after) != "in_progress" else after.pot) == 0
            if S.status(before) == "in_progress" and S.status(after) != "in_progress":
                deals += 1
                S.check_state(after)
        seed += 1


def test_check_state_refuses_money_out_of_thin_air() -> None:
    """§2 invariant as a consistency rule: a state whose accounts do not balance is invalid_state."""
    st = start(H3, "2H")
    with pytest.raises(InvalidState) as info:
        S.check_state(st._replace(balances=(0, 0, 0)))
    assert "balances" in info.value.errors
    r = CODEC.dump_state(st)
    r["pot"] = 30
    with pytest.raises(InvalidState):
        CODEC.load_state(r)


@pytest.mark.parametrize(
    ("change", "path"),
    [
        (lambda s: s._replace(to_move=2), "to_move"),
        (lambda s: s._replace(hands=(s.hands[0], s.hands[1] + (s.stock[0],), s.hands[2])), "hands"),
        (lambda s: s._replace(dealer=5), "dealer"),
        (lambda s: s._replace(phase=Phase.PLAY), "declarations"),
        (lambda s: s._replace(carry=3, balances=(-6, 0, 0)), "carry"),
    ],
)
def test_check_state_refuses_inconsistent_positions(change: Any, path: str) -> None:
    """conventions.md: an inconsistent state is invalid_state with field paths."""
    with pytest.raises(InvalidState) as info:
        S.check_state(change(start(H3, "2H")))
    assert any(k.startswith(path) for k in info.value.errors), info.value.errors


# --- views and events ------------------------------------------------------------------------------


def test_views_hide_other_hands_the_stock_and_discards() -> None:
    """§5: a player's view shows its own hand; other hands, the stock and the discards become counts."""
    st = run(start(H3, "2H"), "tap 1", "tap 2", "tap 0", "ex 1 9C")
    v = to_wire(S.view(st, 1))
    assert v["hand"] == [str(x) for x in st.hands[1]] and "hands" not in v and "stock" not in v and "discards" not in v
    assert v["hand_counts"] == [3, 3, 3] and v["discard_counts"] == [0, 1, 0] and v["stock_count"] == len(st.stock)
    public = to_wire(S.view(st, None))
    assert "hand" not in public and "legal_moves" not in public
    text = json.dumps(public)
    for h in st.hands:
        assert not any(f'"{x}"' in text for x in h)


def test_exchange_event_is_private_to_the_buyer() -> None:
    """§5: the discarded and drawn cards are seen by the buyer only."""
    st = run(start(H3, "2H"), "tap 1", "tap 2", "tap 0")
    _, events = S.step(st, m("ex 1 9C"))
    (ev,) = events
    assert to_wire(event_view(ev, 1, False))["discard"] == ["9C"]
    other = to_wire(event_view(ev, 2, False))
    assert other["discard"] is None and other["drawn"] is None and other["count"] == 1


def test_last_result_is_reset_by_the_next_deal() -> None:
    """§5, §9 (our reading): last_result describes the deal just ended and is null during a deal; violations too."""
    st = run(start(H3, "2H"), "pass 1", "pass 2", "pass 0")
    assert st.last_result is not None
    st = run(st, "next 1")
    assert st.last_result is None and st.violations == ()


def test_state_wire_round_trip_and_derived_values_ignored() -> None:
    """conventions.md: a response's state loads back unchanged; trump, stock_count, tricks_won are derived."""
    st = run(start(H3, "2H", violations="penalize"), "tap 1", "tap 2", "tap 0", "ex 1", "ex 2", "ex 0", "play 1 9C")
    wire = CODEC.dump_state(st)
    assert wire["trump"] == "H" and wire["stock_count"] == len(st.stock) and wire["tricks_won"] == [0, 0, 0]
    assert CODEC.load_state(json.loads(json.dumps(wire))) == st
    wire["tricks_won"] = [9, 9, 9]
    assert CODEC.load_state(wire) == st


# --- §8 every code, §3 every option ---------------------------------------------------------------


@pytest.mark.runs_last
def test_every_section_8_code_was_provoked() -> None:
    """§8: each error code of the table is raised by at least one test of this file (marked
    ``runs_last``: it runs after them in any order the tests are given)."""
    section8 = set(section_8("stukolka"))  # §8's table (tests/codes.py)
    missing = section8 - PROVOKED
    assert not missing, f"never provoked: {sorted(missing)} (run the whole file)"


def _first_deal_moves(options: Options, players: int, seed: int) -> Iterator[tuple[str, Any]]:
    for before, move, after in random_playout(S, players, seed, options, max_moves=400):
        yield json.dumps(to_wire(S.legal_moves(before)), sort_keys=True), CODEC.dump_state(after)


@pytest.mark.parametrize(
    "option",
    [{"dealer": 2}, {"pack": 36}, {"stake": 6}, {"stake_by": "all"}, {"lone_tapper": "wins_pot"}, {"violations": "penalize"},
     {"turnup_ace_king_lead": True}, {"max_exchange": 1}, {"remiz_limit": 1}, {"deals": 1}],
)
def test_every_option_changes_play(option: dict[str, Any]) -> None:
    """§3: each option changes what happens (legal moves or states) in some seeded game."""
    assert set(OPTIONS_NAMES) == {f.name for f in dataclasses.fields(Options)}
    for seed in range(400):
        base = list(_first_deal_moves(Options(deals=3), 4, seed))
        other = list(_first_deal_moves(Options(**{"deals": 3, **option}), 4, seed))
        if json.dumps(base, default=str) != json.dumps(other, default=str):
            return
    pytest.fail(f"option {option} changed nothing in 400 games")


OPTIONS_NAMES = ["dealer", "pack", "stake", "stake_by", "lone_tapper", "violations", "turnup_ace_king_lead",
                 "max_exchange", "remiz_limit", "deals"]


def test_openapi_options_are_the_engines() -> None:
    """openapi.yaml StukolkaOptions: the fields of Options with the same defaults and bounds as OPTION_INFO."""
    from tests.contract import SPEC

    schema = SPEC["components"]["schemas"]["StukolkaOptions"]
    defaults = {f.name: f.default for f in dataclasses.fields(Options)}
    assert set(schema["properties"]) == set(defaults) == set(S.OPTION_INFO)
    for name, prop in schema["properties"].items():
        info = S.OPTION_INFO[name]
        assert prop["default"] == defaults[name], name
        assert prop["description"] == info["description"], name
        kinds = prop["type"] if isinstance(prop["type"], list) else [prop["type"]]
        assert kinds[0] == info["type"] and ("null" in kinds) == bool(info.get("nullable")), name
        for bound in ("minimum", "maximum", "enum", "multipleOf"):
            assert prop.get(bound) == info.get(bound), (name, bound)


def test_openapi_move_union_is_the_engines() -> None:
    """StukolkaMove is a discriminated union over exactly MOVE_TYPES."""
    from tests.contract import SPEC

    move = SPEC["components"]["schemas"]["StukolkaMove"]
    assert set(move["discriminator"]["mapping"]) == set(S.MOVE_TYPES)


# --- through HTTP: many deals in a row ------------------------------------------------------------


def _play_http(client: FlaskClient, sealed: bool, players: int, deals: int, seed: int) -> dict[str, Any]:
    base = "/v1/games/stukolka"
    r = client.post(f"{base}/new", json={"players": players, "seed": seed, "options": {"violations": "penalize" if seed % 2 else "refuse"}})
    assert r.status_code == 201, r.json
    env = r.json
    headers = {"X-Seat-Key": env["table_key"]} if sealed else {}
    rng = random.Random(seed)
    finished = 0
    total = 0
    while finished < deals:
        if sealed:
            seat = env["to_move"][0]
            view = client.post(f"{base}/state?as={seat}", json={"token": env["token"]}, headers=headers).json
            legal = view["legal_moves"]
            assert view["state"]["seat"] == seat and "hands" not in view["state"]
        else:
            legal = env["legal_moves"]
            state = CODEC.load_state(env["state"])
            assert S.money(state) == 0
        move = rng.choice(legal)
        body = {"token": env["token"]} if sealed else {"state": env["state"]}
        r = client.post(f"{base}/moves", json={**body, "move": move}, headers=headers)
        assert r.status_code == 200, r.json
        before = env["status"]
        env = r.json
        total += sum(env["scores"]["totals"])
        if before == "in_progress" and env["status"] == "deal_over":
            finished += 1
            assert sum(env["scores"]["totals"]) + env["scores"]["carry"] == 0
    return env


@pytest.mark.parametrize("players", [3, 5, 7])
def test_many_deals_in_a_row_over_http_open(client: FlaskClient, players: int) -> None:
    """Done-criterion: 25 deals in a row over HTTP (open mode), every response checked against openapi.yaml."""
    env = _play_http(client, False, players, 25, seed=players)
    assert env["state"]["deal_number"] >= 25


@pytest.mark.parametrize("players", [4, 6])
def test_many_deals_in_a_row_over_http_sealed(sealed: FlaskClient, players: int) -> None:
    """Done-criterion: 25 deals in a row over HTTP (sealed mode: tokens, table key, seat views)."""
    env = _play_http(sealed, True, players, 25, seed=players + 1)
    assert env["state"]["deal_number"] >= 25 and "token" in env


def test_check_state_survives_mutated_play_positions() -> None:
    """conventions.md "never a 500": random one-field changes of real positions are accepted or invalid_state.
    A refusal names field paths; an accepted state is one the engine can go on from (check_state
    passes, the legal moves exist exactly while the game goes on and each is accepted); an unchanged
    field loads the same state; and both outcomes occur (the mutations are neither all harmless nor
    all fatal)."""
    rng = random.Random(5)
    states = [after for _, _, after in random_playout(S, 4, 3, Options(deals=2, violations="penalize"))]
    refused = accepted = 0
    for st in states[::3]:
        wire = CODEC.dump_state(st)
        for _ in range(20):
            w = copy.deepcopy(wire)
            key = rng.choice(sorted(w))
            w[key] = rng.choice([None, 0, 1, 6, -1, [], [0], [1, 1], ["AH"], {"cards": ["AH"], "winner": 9}, "play",
                                 [{"cards": ["AH", "KH", "QH", "JH"], "winner": 6}], [[], [], [], []]])
            try:
                loaded = CODEC.load_state(w)
            except InvalidState as exc:
                refused += 1
                assert exc.errors and all(isinstance(k, str) and k and v for k, v in exc.errors.items()), exc.errors
                assert w != wire, f"{key}: an unchanged state was refused: {exc.errors}"
                continue
            accepted += 1
            S.check_state(loaded)
            legal = S.legal_moves(loaded)
            assert bool(legal) == (S.outcome(loaded) is None), key
            for move in legal[:3]:
                if not isinstance(move, NextDeal):
                    S.apply(loaded, move)
            if w[key] == wire[key]:
                assert loaded == st
    assert refused > 300 and accepted > 30, (refused, accepted)  # 457 and 63 at the time of writing


def _finished_deal(deals: int | None) -> State:
    """Dealer 1 takes the pot (everybody else passed): a deal over without play, nothing carried."""
    return run(start(H3, "2H", deals=deals, dealer=1, stake_by="all"), "pass 2", "pass 0", "tap 1")


@pytest.mark.parametrize(
    ("state", "phase"),
    [
        (lambda: _finished_deal(None), Phase.GAME_OVER),  # no deal limit
        (lambda: _finished_deal(2), Phase.GAME_OVER),  # limit not reached
        (lambda: _finished_deal(1), Phase.DEAL_OVER),  # limit reached, nothing carried: the game is over
        (lambda: run(start(H3, "2H", deals=1), "pass 1", "pass 2", "pass 0"), Phase.GAME_OVER),  # a carry waits
    ],
)
def test_check_state_names_phase_when_game_over_disagrees_with_the_deal_limit(state: Any, phase: Phase) -> None:
    """§7.4 as a consistency rule: game_over exactly when the deal limit is reached and nothing is
    carried. A finished deal in the other phase is invalid_state at ``phase``, and only there."""
    st = state()
    S.check_state(st)
    assert st.phase is not phase
    with pytest.raises(InvalidState) as info:
        S.check_state(st._replace(phase=phase))
    assert list(info.value.errors) == ["phase"], info.value.errors


@pytest.mark.parametrize("change", [{"in_play": (1, 2)}, {"defender": 0}])
def test_check_state_names_phase_when_play_starts_before_the_declarations_end(change: dict[str, Any]) -> None:
    """§4-§6: nothing is in play (no seat in play, no defender) while seats still declare; such a
    state is invalid_state at ``phase``, and only there."""
    st = run(start(H3, "2H"), "tap 1")
    with pytest.raises(InvalidState) as info:
        S.check_state(st._replace(**change))
    assert list(info.value.errors) == ["phase"], info.value.errors


def test_deal_started_event_names_the_stakes() -> None:
    """§4 step 2 as an event: the new pot and what each seat paid (dealer only, or all)."""
    st = S.new_game(Options(stake_by="all", stake=6, dealer=2), 3, full_52())
    assert S.initial_events(st) == [{"type": "deal_started", "dealer": 2, "deal_number": 1, "turnup": full_52()[9],
                                     "pot": 18, "stakes": [6, 6, 6]}]
    st = run(start(H3, "2H"), "pass 1", "pass 2", "pass 0")
    _, events = S.step(st, m("next 1"))
    assert events[0]["stakes"] == [0, 3, 0] and events[0]["pot"] == 6


# --- §6.3 and §5 consistency, one rule each (survivors of the mutation sweep on the rewritten engine) ---


def _refused_at(state: State, path: str) -> None:
    with pytest.raises(InvalidState) as info:
        S.check_state(state)
    assert path in info.value.errors, info.value.errors


def test_in_play_event_names_the_seats_in_play_and_the_defender() -> None:
    """§6.3: when the declarations end in play, the deal says who plays and who defends."""
    st = run(start(H3, "2H"), "pass 1", "tap 2")
    _, events = S.step(st, Pass(0))
    found = [e for e in events if e["type"] == "in_play"]
    assert len(found) == 1 and list(found[0]["in_play"]) == [2, 0] and found[0]["defender"] == 0


def test_check_state_in_play_holds_seats_of_the_game() -> None:
    st = run(start(H3, "2H"), "tap 1", "tap 2", "pass 0")
    _refused_at(st._replace(in_play=(1, 7)), "in_play.1")


def test_check_state_defender_follows_from_the_declarations() -> None:
    """§6.3: a lone non-dealer tapper plays against the dealer, who defends; nobody else defends."""
    lone = run(start(H3, "2H"), "pass 1", "tap 2", "pass 0")
    assert lone.defender == 0
    _refused_at(lone._replace(defender=None), "in_play")
    two = run(start(H3, "2H"), "tap 1", "tap 2", "pass 0")
    _refused_at(two._replace(defender=2), "in_play")


def test_check_state_a_seat_buys_at_most_max_exchange_cards() -> None:
    st = run(start(H3, "2H"), "tap 1", "tap 2", "pass 0", "ex 1 9C")
    assert st.exchanged[1] == 1
    _refused_at(st._replace(exchanged=(None, 4, None)), "exchanged.1")
    _refused_at(st._replace(exchanged=(None, -1, None)), "exchanged.1")


def test_check_state_no_trick_is_played_while_buying() -> None:
    """A position with a completed trick but back in the exchange phase (hands and winner
    consistent with the trick): the buying comes before any card is played."""
    st = run(start(H3, "2H"), "tap 1", "tap 2", "pass 0", "ex 1", "ex 2")
    st = run(st, "play 1 AH", "play 2 KC")
    assert len(st.completed_tricks) == 1 and not st.trick
    back = st._replace(phase=Phase.EXCHANGE, exchanged=(None, None, None), leader=None, to_move=1)
    _refused_at(back, "trick")


def test_check_state_the_leader_is_the_last_tricks_winner() -> None:
    st = run(start(H3, "2H"), "tap 1", "tap 2", "pass 0", "ex 1", "ex 2")
    assert st.phase is Phase.PLAY and st.leader == 1
    _refused_at(st._replace(leader=2), "leader")
    st = run(st, "play 1 AH", "play 2 KC")
    winner = st.completed_tricks[0].winner
    _refused_at(st._replace(leader=3 - winner), "leader")


def test_check_state_a_deal_without_play_has_the_result_its_declarations_give() -> None:
    """§6.3: the dealer alone tapped: the result names the dealer as winner, and nobody is penalized
    in a deal without tricks."""
    st = run(start(H3, "2H", dealer=1), "pass 2", "pass 0", "tap 1")
    r = st.last_result
    assert r is not None and r.kind is S.Kind.DEALER_TAKES and r.winner == 1
    _refused_at(st._replace(last_result=r._replace(winner=2)), "last_result")
    _refused_at(st._replace(last_result=r._replace(penalized=(2,))), "last_result")
    _refused_at(st._replace(last_result=r._replace(remized=(2,))), "last_result")
    passed = run(start(H3, "2H"), "pass 1", "pass 2", "pass 0")
    assert passed.last_result is not None and passed.last_result.kind is S.Kind.ALL_PASSED
    _refused_at(passed._replace(last_result=passed.last_result._replace(penalized=(0,))), "last_result")
