"""California Jack engine: one rule per test, each citing ``docs/rules/california_jack.md``.

Positions come from real decks: the spec's deck A (§10) and its 52 plays, or decks built by
``deck_for`` to deal chosen hands and stock. HTTP tests at the end play whole matches in open and
sealed mode through the contract-checking client (tests/conftest.py).
"""

from __future__ import annotations

import copy
import dataclasses
import json
import random
from collections.abc import Sequence
from typing import Any

import pytest
from flask.testing import FlaskClient

from service.cards import Card, Suit
from service.cards.packs import full_52
from service.cards.shuffle import deal_deck
from service.engines import california_jack as E
from service.engines.base import BadMove, BadSetup, IllegalMove, InvalidState, event_view, is_listed
from service.engines.california_jack import Options, Phase, Play, State
from service.engines.moves import NextDeal
from service.schemas import SCHEMAS
from service.schemas.common import to_wire
from tests.codes import section_8
from tests.contract import SPEC
from tests.playouts import candidate_moves, fill_template, is_template, random_playout

PACK = full_52()
CODEC = SCHEMAS["california_jack"]


# --- helpers ----------------------------------------------------------------------------------


def c(text: str) -> Card:
    return Card.parse(text)


def cs(text: str) -> tuple[Card, ...]:
    return tuple(Card.parse(t) for t in text.split())


def new(deck: Sequence[Card], **options: Any) -> State:
    return E.new_game(Options(**options), 2, tuple(deck))


def run(state: State, *moves: Any) -> State:
    for move in moves:
        state = E.apply(state, move)
    return state


def refuse(state: State, move: Any, code: str) -> None:
    """``move`` is refused with ``code``, is not listed, and the state is left as it was."""
    before = copy.deepcopy(state)
    with pytest.raises(IllegalMove) as info:
        E.apply(state, move)
    assert info.value.code == code, info.value.detail
    assert state == before
    assert not is_listed(move, E.legal_moves(state))


def legal(state: State) -> set[Any]:
    return set(E.legal_moves(state))


def plays(player: int, cards: str) -> set[Play]:
    return {Play(player, x) for x in cs(cards)}


def deck_for(nd: str, d: str, stock: str = "") -> tuple[Card, ...]:
    """A deck dealing non-dealer ``nd`` and dealer ``d`` (6 cards each, in received order); the
    stock starts with ``stock`` and the other cards follow in pack order."""
    a, b, head = cs(nd), cs(d), cs(stock)
    used = set(a + b + head)
    rest = tuple(x for x in PACK if x not in used)
    deck = a[:3] + b[:3] + a[3:] + b[3:] + head + rest
    assert len(deck) == 52 and len(set(deck)) == 52
    return deck


# §10 deck A and the 52 plays of Example 2: (leader, lead, second).
DECK_A = cs(
    "4H 5D JS 10H 6S 8S AC 2D JH KH 10S 10D QD 7H 3C 6D 8C 9S 9H 7D QC 7C 9C AS 4C 3H KS 2S 2C 3S 9D 6H "
    "JD 4D JC 8D AH 3D 10C KD 4S 6C 2H AD 5H 8H 5C QS QH KC 7S 5S"
)
EX2 = [
    (1, "4H", "10H"), (0, "6S", "JS"), (1, "2D", "6D"), (0, "8S", "9S"), (1, "5D", "7D"), (0, "10S", "3C"),
    (1, "7H", "KH"), (0, "4C", "7C"), (1, "3H", "8C"), (0, "2S", "3S"), (1, "9H", "6H"), (1, "9D", "10D"),
    (0, "2C", "9C"), (1, "8D", "QD"), (0, "3D", "JD"), (1, "4S", "AS"), (0, "4D", "KD"), (1, "5H", "8H"),
    (0, "5C", "AC"), (1, "JH", "2H"), (1, "QH", "5S"), (0, "6C", "7S"), (1, "AH", "10C"), (1, "AD", "JC"),
    (1, "QS", "QC"), (1, "KS", "KC"),
]


def ex2(tricks: int = 26, **options: Any) -> State:
    """Deck A after the first ``tricks`` tricks of Example 2."""
    state = new(DECK_A, **options)
    for leader, lead, second in EX2[:tricks]:
        state = run(state, Play(leader, c(lead)), Play(1 - leader, c(second)))
    return state


def hand_over(**options: Any) -> State:
    return ex2(26, **options)


# --- §2, §4 setup -----------------------------------------------------------------------------


@pytest.mark.parametrize("dealer", [0, 1])
def test_deal_two_packets_of_three_non_dealer_first(dealer: int) -> None:
    """§4.1: nd gets D[0..2], d gets D[3..5], nd D[6..8], d D[9..11]."""
    state = new(DECK_A, dealer=dealer)
    nd, d = 1 - dealer, dealer
    assert state.hands[nd] == DECK_A[0:3] + DECK_A[6:9]
    assert state.hands[d] == DECK_A[3:6] + DECK_A[9:12]


def test_stock_is_the_other_40_cards_top_first() -> None:
    """§4.2: the stock is D[12..51]."""
    assert new(DECK_A).stock == DECK_A[12:]


def test_first_trump_is_the_suit_of_the_first_turned_card() -> None:
    """§4.3: trump = suit of D[12], which stays on top of the stock."""
    state = new(DECK_A)
    assert state.trump is Suit.D and E.stock_top(state) == c("QD")


@pytest.mark.parametrize("dealer", [0, 1])
def test_non_dealer_leads_the_first_trick(dealer: int) -> None:
    """§4.4: phase play, to_move = [nd]."""
    state = new(DECK_A, dealer=dealer)
    assert state.phase is Phase.PLAY and state.to_move == (1 - dealer,) and state.trick_leader == 1 - dealer
    assert {m.player for m in E.legal_moves(state)} == {1 - dealer}


def test_seq_counts_the_moves_applied_from_zero() -> None:
    """conventions.md (bookkeeping fields): ``seq`` is the number of moves applied so far, 0 for a
    new match, one more per move."""
    s = new(DECK_A)
    assert s.seq == 0
    assert run(s, Play(1, c("4H")), Play(0, c("10H"))).seq == 2


def test_new_game_needs_exactly_two_players() -> None:
    """§8 creation errors: invalid_players."""
    for n in (1, 3):
        with pytest.raises(BadSetup) as info:
            E.new_game(Options(), n, DECK_A)
        assert info.value.code == "invalid_players"


def test_new_game_refuses_a_deck_that_is_not_the_pack() -> None:
    """§4 / §8 creation errors: invalid_deck."""
    for deck in (DECK_A[:-1], DECK_A[:-1] + DECK_A[:1]):
        with pytest.raises(BadSetup) as info:
            new(deck)
        assert info.value.code == "invalid_deck"


# --- §6.1 winning tricks ---------------------------------------------------------------------


@pytest.mark.parametrize(("low", "high"), [("2", "3"), ("9", "10"), ("10", "J"), ("J", "Q"), ("Q", "K"), ("K", "A")])
def test_rank_order_a_high_2_low(low: str, high: str) -> None:
    """§2: A K Q J 10 … 2; the higher card of the led suit wins."""
    state = new(deck_for(f"{low}H 3C 4C 5C 6C 7C", f"{high}H 3S 4S 5S 6S 7S", "8D"))
    state = run(state, Play(1, c(f"{low}H")), Play(0, c(f"{high}H")))
    assert state.tricks[-1].winner == 0
    state = new(deck_for(f"{high}H 3C 4C 5C 6C 7C", f"{low}H 3S 4S 5S 6S 7S", "8D"))
    state = run(state, Play(1, c(f"{high}H")), Play(0, c(f"{low}H")))
    assert state.tricks[-1].winner == 1


def test_a_trump_beats_any_card_of_the_led_suit() -> None:
    """§6.1: the trick is won by the trump if one was played (trick 6 of Example 2: 3C trumps 10S)."""
    state = ex2(6)
    assert state.tricks[5].trump is Suit.C and state.tricks[5].winner == 1


def test_an_off_suit_non_trump_card_never_wins() -> None:
    """§6.1: otherwise the higher card of the led suit wins; a discard of another suit loses."""
    state = new(deck_for("2H 3C 4C 5C 6C 7C", "AS 3S 4S 5S 6S 7S", "8D"))
    state = run(state, Play(1, c("2H")), Play(0, c("AS")))
    assert state.tricks[-1].winner == 1


def test_a_led_trump_is_beaten_only_by_a_higher_trump() -> None:
    """§6.1: trumps led; the higher trump wins (Example 2 trick 10: 2S led while D is trump, 3S wins)."""
    state = ex2(10)
    assert state.tricks[9].trump is Suit.D and state.tricks[9].winner == 1
    state = new(deck_for("5D 3C 4C 5C 6C 7C", "4D 3S 4S 5S 6S 7S", "8D"))
    state = run(state, Play(1, c("5D")), Play(0, c("4D")))
    assert state.tricks[-1].winner == 1


def test_the_trick_winner_leads_the_next_trick() -> None:
    """§6.1 (3): the winner leads next."""
    for k in range(1, 27):
        state = ex2(k)
        if state.phase is Phase.PLAY:
            assert state.to_move == (state.tricks[-1].winner,) == (state.trick_leader,)


# --- §6.1 following ----------------------------------------------------------------------------


def test_follow_suit_must_follow_the_led_suit_if_able() -> None:
    """§6.1 follow_suit: holding the led suit, only that suit (a trump is refused: Example 1)."""
    state = run(new(DECK_A), Play(1, c("4H")))
    assert legal(state) == plays(0, "10H KH")
    refuse(state, Play(0, c("10D")), "must_follow_suit")
    refuse(state, Play(0, c("6S")), "must_follow_suit")


def test_must_follow_suit_names_only_what_the_rule_allows() -> None:
    """§6.1, §8 must_follow_suit: the refusal says what may be played, the led suit under
    follow_suit (never a trump) and the led suit or a trump under follow_or_trump."""
    with pytest.raises(IllegalMove) as info:
        E.apply(run(new(DECK_A), Play(1, c("4H"))), Play(0, c("10D")))
    assert info.value.code == "must_follow_suit" and "trump" not in info.value.detail, info.value.detail
    with pytest.raises(IllegalMove) as info:
        E.apply(run(new(DECK_A, follow_rule="follow_or_trump"), Play(1, c("4H"))), Play(0, c("6S")))
    assert info.value.code == "must_follow_suit" and "or a trump" in info.value.detail, info.value.detail


def test_hand_counts_in_a_view_are_each_seats_own() -> None:
    """§5 view: ``hand_counts`` per seat; mid-trick the leader holds one card fewer."""
    state = run(new(DECK_A), Play(1, c("4H")))
    assert E.view(state, 0)["hand_counts"] == [6, 5] and E.view(state, None)["hand_counts"] == [6, 5]


def test_follow_suit_void_in_the_led_suit_may_play_anything() -> None:
    """§6.1 follow_suit: void in L → any card, trump or not."""
    state = new(deck_for("2H 3C 4C 5C 6C 7C", "AS 3S 4D 5S 6S 7S", "8D"))
    state = run(state, Play(1, c("2H")))
    assert legal(state) == plays(0, "AS 3S 4D 5S 6S 7S")


def test_follow_or_trump_may_trump_instead_of_following() -> None:
    """§3 follow_rule = follow_or_trump: holding L, play L or a trump (default refuses the trump)."""
    state = run(new(DECK_A, follow_rule="follow_or_trump"), Play(1, c("4H")))
    assert legal(state) == plays(0, "10H KH 10D")
    refuse(state, Play(0, c("6S")), "must_follow_suit")
    after = E.apply(state, Play(0, c("10D")))
    assert after.tricks[-1].winner == 0


def test_follow_or_trump_void_in_the_led_suit_may_play_anything() -> None:
    """§6.1 follow_or_trump: void in L → any card (no obligation to trump)."""
    state = new(deck_for("2H 3C 4C 5C 6C 7C", "AS 3S 4D 5S 6S 7S", "8D"), follow_rule="follow_or_trump")
    state = run(state, Play(1, c("2H")))
    assert legal(state) == plays(0, "AS 3S 4D 5S 6S 7S")


def test_compulsory_void_in_the_led_suit_must_trump() -> None:
    """§3 follow_or_trump_compulsory: void in L holding T → must play T (must_trump)."""
    deck = deck_for("2H 3C 4C 5C 6C 7C", "AS 3S 4D 5S 6D 7S", "8D")
    state = run(new(deck, follow_rule="follow_or_trump_compulsory"), Play(1, c("2H")))
    assert legal(state) == plays(0, "4D 6D")
    refuse(state, Play(0, c("AS")), "must_trump")
    default = run(new(deck), Play(1, c("2H")))
    assert E.apply(default, Play(0, c("AS"))).tricks[-1].winner == 1


def test_compulsory_holding_the_led_suit_follows_or_trumps() -> None:
    """§6.1 follow_or_trump_compulsory: holding L → L or T."""
    state = run(new(DECK_A, follow_rule="follow_or_trump_compulsory"), Play(1, c("4H")))
    assert legal(state) == plays(0, "10H KH 10D")
    refuse(state, Play(0, c("8S")), "must_follow_suit")


def test_compulsory_void_in_led_suit_and_trumps_may_play_anything() -> None:
    """§6.1 follow_or_trump_compulsory: void in both → any card."""
    state = new(deck_for("2H 3C 4C 5C 6C 7C", "AS 3S 4S 5S 6S 7S", "8D"), follow_rule="follow_or_trump_compulsory")
    state = run(state, Play(1, c("2H")))
    assert legal(state) == plays(0, "AS 3S 4S 5S 6S 7S")


@pytest.mark.parametrize("rule", E.FOLLOW_RULES)
def test_trump_led_means_follow_trumps_under_every_rule(rule: str) -> None:
    """§6.1 (seven_up §6.5): when L = T every rule means "follow trumps if able"."""
    state = new(deck_for("2D 3C 4C 5C 6C 7C", "AS 3D 4S 9D 6S 7S", "8D"), follow_rule=rule)
    state = run(state, Play(1, c("2D")))
    assert legal(state) == plays(0, "3D 9D")


def test_the_follow_rule_uses_the_trump_of_the_current_trick() -> None:
    """§3 follow_rule "always with the trump of the current trick": after the trump moves to C,
    follow_or_trump allows clubs, no longer diamonds (Example 1 trick 2)."""
    state = run(new(DECK_A, follow_rule="follow_or_trump"), Play(1, c("4H")), Play(0, c("10H")))
    assert state.trump is Suit.C
    state = run(state, Play(0, c("6S")))
    assert legal(state) == plays(1, "JS AC")
    refuse(state, Play(1, c("2D")), "must_follow_suit")


def test_the_leader_may_lead_any_card() -> None:
    """§6.1: the leader's card starts the trick; no obligation."""
    state = ex2(4)
    assert legal(state) == {Play(1, x) for x in state.hands[1]}


# --- §6.1 drawing and the changing trump -------------------------------------------------------


def test_winner_draws_the_top_card_then_the_loser_the_next() -> None:
    """§6.1 (1): Example 1 trick 1: seat 0 wins, draws QD; seat 1 draws 7H."""
    state = ex2(1)
    assert [(d.player, str(d.card)) for d in state.draws] == [(0, "QD"), (1, "7H")]
    assert state.hands[0][-1] == c("QD") and state.hands[1][-1] == c("7H")
    assert len(state.stock) == 38


def test_changing_trump_is_the_suit_of_the_new_top_card() -> None:
    """§3 trump_mode = changing, §6.1 (2): Example 1/2's trump column, trick by trick."""
    want = "D C C H C C C S C D D C H C S H H C H S S S S S S S"
    got = [ex2(k - 1).trump.value for k in range(1, 27)]
    assert got == want.split()


def test_fixed_trump_keeps_the_first_turn_up_suit_for_the_hand() -> None:
    """§3 trump_mode = fixed: D for every trick; trick 6's 3C is no longer a trump (Example 4)."""
    state = ex2(5, trump_mode="fixed")
    state = run(state, Play(0, c("10S")), Play(1, c("3C")))
    assert state.tricks[-1].winner == 0
    assert {t.trump for t in state.tricks} == {Suit.D} and state.trump is Suit.D
    assert state.hands == (cs("KH 10D QD 8C QC 9C"), cs("AC JH 7H 9H 7C AS"))


def test_the_last_trump_stays_once_the_stock_is_empty() -> None:
    """§4, §9.2: trick 20 is played with the suit of D[50]; tricks 21–26 keep it; D[51] never sets trumps."""
    state = ex2(20)
    assert not state.stock and state.trump is DECK_A[50].suit is Suit.S
    assert DECK_A[51].suit is Suit.S  # (same suit here; the next test moves D[51] to another suit)
    for k in range(21, 27):
        assert ex2(k).tricks[-1].trump is Suit.S


def test_the_very_last_stock_card_never_sets_trumps() -> None:
    """§9.2: the loser of trick 20 draws D[51]; its suit is not the final trump."""
    rng = random.Random(5)
    deck = list(deal_deck(PACK, 77))
    while deck[51].suit is deck[50].suit:
        i = rng.randrange(12, 50)
        deck[51], deck[i] = deck[i], deck[51]
    state = new(deck)
    while len(state.tricks) < 20:
        state = E.apply(state, E.legal_moves(state)[0])
    assert not state.stock and state.trump is deck[50].suit is not deck[51].suit


def test_no_draws_after_trick_20_hands_run_down() -> None:
    """§6.1 (1): the last six tricks are played without drawing."""
    for k in range(20, 27):
        state = ex2(k)
        assert len(state.draws) == 40
        assert len(state.hands[0]) == len(state.hands[1]) == 6 - (k - 20)


def test_the_hand_is_scored_after_trick_26() -> None:
    """§6.1: after trick 26 (both hands empty) the hand is scored (§7)."""
    assert ex2(25).phase is Phase.PLAY and ex2(25).last_hand is None
    state = hand_over()
    assert state.phase is Phase.DEAL_OVER and state.last_hand is not None and len(state.tricks) == 26


# --- §4 exposure of stock cards, §5 views ------------------------------------------------------


def test_face_up_stock_every_draw_is_public() -> None:
    """§4 stock_face_up = true: the top card is visible and every draw public (Example 1)."""
    state = ex2(4)
    assert all(d.public for d in state.draws)
    assert E.known_cards(state, 0) == list(cs("QD 8C 7D")) and E.known_cards(state, 1) == list(cs("7H 3C 9H"))
    assert E.view(state, 1)["stock_top"] == c("QC")


def test_face_down_changing_only_the_losers_draw_is_private() -> None:
    """§3 stock_face_up = false, changing: the turned-up trump card is seen, the loser's draw is not
    (Example 5)."""
    state = ex2(1, stock_face_up=False)
    assert [d.public for d in state.draws] == [True, False]
    seat0 = to_wire(E.view(state, 0))
    assert seat0["known_cards"][1] == [] and seat0["draws"][1] == {"trick": 1, "player": 1, "card": None, "public": False}
    assert to_wire(E.view(state, 1))["known_cards"][0] == ["QD"]
    assert seat0["stock_top"] == "3C"
    state = ex2(2, stock_face_up=False)
    assert [d.public for d in state.draws[2:]] == [True, False] and E.stock_top(state) == c("8C")


def test_a_private_draw_is_visible_to_its_drawer_only() -> None:
    """§3 stock_face_up = false, §5 draws: the loser's face-down draw is in the leak checks' oracle
    (``visible_cards``) for the drawer and not for the other seat."""
    state = ex2(1, stock_face_up=False)
    private = state.draws[1]
    assert not private.public and private.player == 1
    assert private.card in E.visible_cards(state, 1)
    assert private.card not in E.visible_cards(state, 0) | E.visible_cards(state, None)


def test_face_down_fixed_the_top_card_is_seen_only_before_the_first_draw() -> None:
    """§4 table, stock_face_up = false + fixed: only trick 1's winner's draw is public; later the
    top card is hidden and every draw private."""
    state = new(DECK_A, stock_face_up=False, trump_mode="fixed")
    assert E.stock_top(state) == c("QD")
    state = ex2(3, stock_face_up=False, trump_mode="fixed")
    assert [d.public for d in state.draws] == [True, False, False, False, False, False]
    assert E.stock_top(state) is None and E.view(state, 0)["stock_top"] is None
    assert c("9H") not in E.visible_cards(state, 0) | E.visible_cards(state, 1)  # the top card


def test_a_private_draw_event_is_blanked_for_the_other_seat() -> None:
    """§5: a draw that is not public shows its card only to the drawer (events too)."""
    state = ex2(0, stock_face_up=False)
    state = E.apply(state, Play(1, c("4H")))
    _, events = E.step(state, Play(0, c("10H")))
    drawn = [e for e in events if e["type"] == "card_drawn"]
    assert [event_view(e, 0, False)["card"] for e in drawn] == [c("QD"), None]
    assert [event_view(e, 1, False)["card"] for e in drawn] == [c("QD"), c("7H")]
    assert [event_view(e, None, False)["card"] for e in drawn] == [c("QD"), None]


def test_view_hides_the_other_hand_the_stock_and_the_seed() -> None:
    """§5 view: seed/stock removed (stock_count, stock_top added), the other hand null with hand_counts."""
    state = E.new_game(Options(), 2, DECK_A, seed=12)
    for seat in (0, 1):
        v = E.view(state, seat)
        assert "seed" not in v and "stock" not in v
        assert v["hands"] == [state.hands[0] if seat == 0 else None, state.hands[1] if seat == 1 else None]
        assert v["hand_counts"] == [6, 6] and v["stock_count"] == 40 and v["stock_top"] == c("QD")
    public = E.view(state, None)
    assert public["hands"] == [None, None] and "legal_moves" not in public
    assert "legal_moves" in E.view(state, 1) and "legal_moves" not in E.view(state, 0)


def test_known_cards_are_publicly_drawn_cards_still_in_hand() -> None:
    """§5 known_cards: a publicly drawn card leaves known_cards once played."""
    state = ex2(2)
    assert E.known_cards(state, 0) == list(cs("QD 6D"))
    state = run(state, Play(1, c("2D")), Play(0, c("6D")))
    assert c("6D") not in E.known_cards(state, 0)


# --- §7 scoring ------------------------------------------------------------------------------


def test_high_low_jack_of_the_final_trump_go_to_their_captors() -> None:
    """§7: final trump S (suit of D[50]); AS → seat 0, 2S → seat 1, JS → seat 1 (Example 2)."""
    state = hand_over()
    assert state.last_hand is not None
    assert [(a.point, str(a.card), a.seat, a.credited) for a in state.last_hand.awards] == [
        ("high", "AS", 0, True), ("low", "2S", 1, True), ("jack", "JS", 1, True)]
    assert state.scores == (1, 2) and state.last_hand.trump is Suit.S


def test_low_counts_to_the_captor_not_the_holder() -> None:
    """§9.4: seat 0 held 2S (drawn after trick 8) and led it; seat 1 captured it and scores Low."""
    state = ex2(9)
    assert c("2S") in state.hands[0]
    assert next(a for a in hand_over().last_hand.awards if a.point == "low").seat == 1  # type: ignore[union-attr]


def test_the_trump_at_capture_time_does_not_matter() -> None:
    """§7, §9.3: AS was captured in trick 16 while hearts were trumps; it is still High."""
    state = ex2(16)
    assert state.tricks[15].trump is Suit.H and c("AS") in [pc.card for pc in state.tricks[15].cards]
    assert hand_over().last_hand.awards[0].seat == 0  # type: ignore[union-attr]


def test_fixed_mode_scores_the_first_turn_up_suit() -> None:
    """§7: in fixed mode T = suit of D[12]."""
    state = new(DECK_A, trump_mode="fixed")
    while state.phase is Phase.PLAY:
        state = E.apply(state, E.legal_moves(state)[0])
    assert state.last_hand is not None and state.last_hand.trump is Suit.D
    assert [str(a.card) for a in state.last_hand.awards] == ["AD", "2D", "JD"]


def test_game_point_option_adds_game_for_the_greater_card_value() -> None:
    """§3 game_point: Game → seat 1 (49 > 31): [1, 3]; without the option Game is reported only."""
    with_game = hand_over(game_point=True)
    assert with_game.scores == (1, 3)
    assert with_game.last_hand.awards[-1] == E.Award("game", None, 1, True)  # type: ignore[union-attr]
    plain = hand_over()
    assert len(plain.last_hand.awards) == 3 and plain.last_hand.game_totals == (31, 49)  # type: ignore[union-attr]


def test_card_values_for_game() -> None:
    """§2: 10 = 10, A = 4, K = 3, Q = 2, J = 1, others 0; 80 in the pack."""
    state = hand_over()
    assert sum(E.game_totals(state)) == 80


def test_game_tie_scores_nobody() -> None:
    """§7 / §9.5: 40–40 → Game to nobody (seat null, not credited). Found in seeded hands."""
    for seed in range(400):
        state = E.new_game(Options(game_point=True, target=1000 - 1), 2, deal_deck(PACK, seed))
        rng = random.Random(seed)
        while state.phase is Phase.PLAY:
            moves = E.legal_moves(state)
            state = E.apply(state, moves[rng.randrange(len(moves))])
        assert state.last_hand is not None
        if state.last_hand.game_totals == (40, 40):
            assert state.last_hand.awards[-1] == E.Award("game", None, None, False)
            assert sum(state.scores) == 3
            return
    pytest.fail("no 40-40 hand in 400 seeded hands")


def test_counting_out_stops_at_the_target() -> None:
    """§7 counting out (Example 3): start [8, 9]; High → 9, Low → seat 1 reaches 10 and wins; Jack not credited."""
    state = hand_over(start_scores=(8, 9))
    assert state.phase is Phase.GAME_OVER and state.winner == 1 and state.scores == (9, 10)
    assert [a.credited for a in state.last_hand.awards] == [True, True, False]  # type: ignore[union-attr]
    assert E.outcome(state) is not None and E.outcome(state).winners == {1}  # type: ignore[union-attr]
    assert state.to_move == () and E.legal_moves(state) == []
    assert state.dealer == 0  # §7: the dealer passes on only when another hand follows


def test_counting_out_credits_high_before_low_and_jack() -> None:
    """§7, §9.10: both could reach 10; High is credited first, so seat 0 wins with 10 while seat 1 stays at 9."""
    state = hand_over(start_scores=(9, 9))
    assert state.winner == 0 and state.scores == (10, 9)
    assert [a.credited for a in state.last_hand.awards] == [True, False, False]  # type: ignore[union-attr]


def test_game_award_names_its_seat_even_when_counting_out_stopped_before_it() -> None:
    """§7 last_hand: the game entry's seat is the greater total even when it was not credited."""
    state = hand_over(start_scores=(9, 9), game_point=True)
    assert state.last_hand.awards[-1] == E.Award("game", None, 1, False)  # type: ignore[union-attr]


def test_target_option_sets_the_points_needed() -> None:
    """§3 target: with target 2 seat 1 wins the hand of Example 2 (Jack brings it to 2); default 10 goes on."""
    state = hand_over(target=2)
    assert state.phase is Phase.GAME_OVER and state.winner == 1 and state.scores == (1, 2)
    assert hand_over().phase is Phase.DEAL_OVER


def test_start_scores_option_sets_the_initial_scores() -> None:
    """§3 start_scores: scores start there; each must be below the target."""
    assert new(DECK_A, start_scores=(3, 4)).scores == (3, 4)
    for bad in ((10, 0), (0, -1)):
        with pytest.raises(BadSetup) as info:
            new(DECK_A, start_scores=bad)
        assert info.value.code == "invalid_option"
    with pytest.raises(BadSetup):
        CODEC.load_options({"start_scores": [0, 7], "target": 7})
    assert CODEC.load_options({"start_scores": [0, 6], "target": 7}).start_scores == (0, 6)


@pytest.mark.parametrize(
    "bad",
    [{"colour": "red"}, {"target": 0}, {"dealer": 2}, {"trump_mode": "wild"}, {"follow_rule": "any"},
     {"stock_face_up": "yes"}, {"game_point": 1}, {"start_scores": [0]}, {"start_scores": "00"}],
)
def test_unknown_or_invalid_options_are_refused(bad: dict[str, Any]) -> None:
    """§3: unknown or invalid options → invalid_option at creation."""
    with pytest.raises(BadSetup) as info:
        CODEC.load_options(bad)
    assert info.value.code == "invalid_option"


@pytest.mark.parametrize("bad", [{"trump_mode": "wild"}, {"follow_rule": "any"}, {"dealer": 2}, {"target": 0}])
def test_the_engine_itself_refuses_invalid_options(bad: dict[str, Any]) -> None:
    """§3: the engine checks its options too (not only the HTTP edge's schema): invalid_option."""
    with pytest.raises(BadSetup) as info:
        new(DECK_A, **bad)
    assert info.value.code == "invalid_option"


def test_dealer_option_sets_the_first_dealer() -> None:
    """§3 dealer: with dealer 1, seat 0 is the non-dealer and leads trick 1."""
    state = new(DECK_A, dealer=1)
    assert state.dealer == 1 and state.to_move == (0,) and state.hands[0] == cs("4H 5D JS AC 2D JH")


# --- §4 next hand, §6.2, §6.3 ------------------------------------------------------------------


def test_the_deal_alternates_and_waits_for_the_new_dealer() -> None:
    """§4 next hand, §7: dealer := 1 − dealer; deal_over waits for the new dealer's next_deal."""
    state = hand_over()
    assert state.dealer == 1 and state.to_move == (1,)
    assert E.legal_moves(state) == [NextDeal(1)]
    refuse(state, NextDeal(0, DECK_A), "not_your_turn")
    refuse(state, Play(1, c("KS")), "wrong_phase")
    nxt = E.apply(state, NextDeal(1, DECK_A))
    assert nxt.deal_number == 2 and nxt.dealer == 1 and nxt.to_move == (0,) and nxt.scores == (1, 2)
    assert nxt.hands[0] == cs("4H 5D JS AC 2D JH") and nxt.tricks == () and nxt.draws == ()
    assert nxt.last_hand == state.last_hand


def test_next_deal_deck_must_be_the_pack() -> None:
    """§6.2 / §8: invalid_deck for a next_deal deck that is not the 52-card pack."""
    state = hand_over()
    for deck in (DECK_A[:-1], DECK_A[:-1] + DECK_A[:1]):
        with pytest.raises(IllegalMove) as info:
            E.apply(state, NextDeal(1, deck))
        assert info.value.code == "invalid_deck"


def test_a_finished_game_refuses_every_move() -> None:
    """§6.3: every move → game_over."""
    state = hand_over(target=2)
    for move in candidate_moves(E, state, PACK, seats=(0, 1)):
        with pytest.raises(IllegalMove) as info:
            E.apply(state, move)
        assert info.value.code == "game_over"
    assert E.status(state) == "finished"


def test_a_whole_match_to_ten_with_alternating_dealers() -> None:
    """§7: hands follow one another until a seat reaches 10; the dealer alternates every hand."""
    steps = list(random_playout(E, 2, 31, Options()))
    final = steps[-1][2]
    assert final.phase is Phase.GAME_OVER and max(final.scores) >= 10 and final.deal_number > 1
    dealers = [after.dealer for _, move, after in steps if isinstance(move, NextDeal)]
    assert all(dealers[i] != dealers[i + 1] for i in range(len(dealers) - 1))


# --- §8 errors -------------------------------------------------------------------------------

FRESH = new(DECK_A)
OVER = hand_over()  # deal_over, new dealer 1

# (code, state, move) — every §8 code, each provoked once here (more in the tests above).
PROVOKED: list[tuple[str, State, Any]] = [
    ("game_over", hand_over(target=2), Play(0, c("AS"))),
    ("invalid_move", FRESH, CODEC.load_move({"type": "play", "player": 1}, 2)),
    ("unknown_move_type", FRESH, CODEC.load_move({"type": "stand", "player": 1}, 2)),
    ("invalid_player", FRESH, CODEC.load_move({"type": "play", "player": 2, "card": "4H"}, 2)),
    ("wrong_phase", FRESH, NextDeal(1)),
    ("wrong_phase", OVER, Play(1, c("KS"))),
    ("not_your_turn", FRESH, Play(0, c("10H"))),
    ("invalid_card", FRESH, CODEC.load_move({"type": "play", "player": 1, "card": "1H"}, 2)),
    ("invalid_deck", OVER, CODEC.load_move({"type": "next_deal", "player": 1, "deck": ["AS"]}, 2)),
    ("card_not_in_hand", FRESH, Play(1, c("KH"))),
    ("must_follow_suit", run(FRESH, Play(1, c("4H"))), Play(0, c("10D"))),
    ("must_trump", run(new(deck_for("2H 3C 4C 5C 6C 7C", "AS 3S 4D 5S 6D 7S", "8D"),
                           follow_rule="follow_or_trump_compulsory"), Play(1, c("2H"))), Play(0, c("AS"))),
]


@pytest.mark.parametrize(("code", "state", "move"), PROVOKED, ids=[p[0] for p in PROVOKED])
def test_error_code(code: str, state: State, move: Any) -> None:
    """§8: each code, provoked."""
    with pytest.raises(IllegalMove) as info:
        E.apply(state, move)
    assert info.value.code == code


SECTION_8 = set(section_8("california_jack"))  # §8's table (tests/codes.py)


def test_every_section_8_code_is_provoked() -> None:
    """§8: the codes provoked above are exactly the table's."""
    assert {p[0] for p in PROVOKED} == SECTION_8


@pytest.mark.parametrize(
    ("wire", "code"),
    [
        ({"type": "play", "player": 5}, "invalid_move"),  # invalid_move before invalid_player
        ({"type": "stand", "player": 5}, "unknown_move_type"),  # unknown_move_type before invalid_player
        ({"type": "next_deal", "player": 7}, "invalid_player"),  # invalid_player before wrong_phase
        ({"type": "next_deal", "player": 0}, "wrong_phase"),  # wrong_phase before not_your_turn
        ({"type": "play", "player": 0, "card": "1H"}, "not_your_turn"),  # not_your_turn before invalid_card
        ({"type": "play", "player": 0, "card": "KH"}, "not_your_turn"),  # not_your_turn before the hand
    ],
)
def test_errors_are_checked_in_section_8_order(wire: dict[str, Any], code: str) -> None:
    """§8: "Checked in this order"."""
    move = CODEC.load_move(wire, 2)
    with pytest.raises(IllegalMove) as info:
        E.apply(FRESH, move)
    assert info.value.code == code


def test_game_over_comes_before_parse_errors() -> None:
    """§8: game_over first, even for a malformed move."""
    with pytest.raises(IllegalMove) as info:
        E.apply(hand_over(target=2), BadMove("invalid_move", "no type"))
    assert info.value.code == "game_over"


def test_must_follow_suit_before_must_trump_order_is_moot_but_codes_are_distinct() -> None:
    """§8: holding the led suit is must_follow_suit even under follow_or_trump_compulsory."""
    state = run(new(DECK_A, follow_rule="follow_or_trump_compulsory"), Play(1, c("4H")))
    refuse(state, Play(0, c("6S")), "must_follow_suit")


# --- state validation (docs/rules/conventions.md) --------------------------------------------------------


def test_check_state_accepts_every_state_of_example_2() -> None:
    for k in range(27):
        E.check_state(ex2(k))
        E.check_state(ex2(k, stock_face_up=False))
    for _, _, after in random_playout(E, 2, 8, Options(trump_mode="fixed", stock_face_up=False)):
        E.check_state(after)


@pytest.mark.parametrize(
    ("change", "path"),
    [
        (lambda s: s._replace(trump=Suit.H), "trump"),
        (lambda s: s._replace(hands=(s.hands[0], s.hands[1][:-1] + (s.hands[0][0],))), "hands"),
        (lambda s: s._replace(to_move=(1 - s.to_move[0],)), "to_move"),
        (lambda s: s._replace(draws=s.draws[:-1]), "draws"),
        (lambda s: s._replace(draws=s.draws[:-1] + (s.draws[-1]._replace(public=False),)), "draws.7.public"),
        (lambda s: s._replace(scores=(10, 0)), "phase"),
        (lambda s: s._replace(draws=s.draws[:-1] + (s.draws[-1]._replace(card=s.hands[1][0]),)), "draws.7.card"),
        (lambda s: s._replace(tricks=(s.tricks[0]._replace(winner=1),) + s.tricks[1:]), "tricks.0.winner"),
    ],
    ids=["trump", "card-twice", "turn", "draws-missing", "exposure", "score-over-target", "drawn-card-elsewhere",
         "trick-winner"],
)
def test_check_state_refuses_inconsistent_states(change: Any, path: str) -> None:
    state = change(ex2(4))
    with pytest.raises(InvalidState) as info:
        E.check_state(state)
    assert path in info.value.errors, info.value.errors


def _other_suit(suit: Suit) -> Suit:
    return next(x for x in Suit if x is not suit)


def _refused_at(state: State, path: str) -> None:
    with pytest.raises(InvalidState) as info:
        E.check_state(state)
    assert path in info.value.errors, info.value.errors


def test_check_state_fixed_trump_is_the_first_turn_up_all_hand() -> None:
    """§3 trump_mode = fixed: the trump is the first turn-up's suit and every trick has it."""
    state = ex2(4, trump_mode="fixed")
    E.check_state(state)
    _refused_at(state._replace(trump=_other_suit(state.trump)), "trump")
    t = state.tricks[1]
    _refused_at(state._replace(tricks=(state.tricks[0], t._replace(trump=_other_suit(t.trump)), *state.tricks[2:])), "tricks.1.trump")


def test_check_state_trump_stays_once_the_stock_is_empty() -> None:
    """§3 trump_mode = changing, §6.1 play (2): once the stock is empty (after the 20th trick) the
    last trump stays for the rest of the hand."""
    state = ex2(22)
    E.check_state(state)
    last = state.tricks[19].trump
    other = _other_suit(last)
    tricks = (*state.tricks[:20], state.tricks[20]._replace(trump=other), state.tricks[21]._replace(trump=other))
    _refused_at(state._replace(tricks=tricks), "tricks.20.trump")


def test_check_state_the_last_tricks_winner_leads() -> None:
    """§6.1 play (3): the winner of a trick leads the next one."""
    state = ex2(4)
    assert not state.trick and state.trick_leader == state.tricks[-1].winner
    _refused_at(state._replace(trick_leader=1 - state.trick_leader), "trick_leader")


def test_check_state_seq_is_never_negative() -> None:
    """conventions.md (bookkeeping fields): ``seq`` counts the moves applied, so it is never negative."""
    _refused_at(ex2(4)._replace(seq=-1), "seq")


def test_check_state_no_winner_while_the_hand_is_played() -> None:
    """§5, §7: ``winner`` is null until the game is over; a hand in play has none."""
    _refused_at(ex2(4)._replace(winner=0), "winner")


@pytest.mark.parametrize(
    ("mutate", "path"),
    [
        (lambda w: w["draws"][3].__setitem__("card", "1H"), "draws.3.card"),
        (lambda w: w["draws"][2].pop("public"), "draws.2.public"),
        (lambda w: w["draws"][0].__setitem__("trick", 21), "draws.0.trick"),
        (lambda w: w["tricks"][1]["cards"][0].__setitem__("player", 3), "tricks.1.cards.0.player"),
        (lambda w: w["tricks"][0].__setitem__("zz", 1), "tricks.0.zz"),
        (lambda w: w["tricks"][0].__setitem__("trump", "X"), "tricks.0.trump"),
        (lambda w: w["tricks"][0].__setitem__("cards", []), "tricks.0.cards"),
        (lambda w: w.__setitem__("trick", [1]), "trick.0"),
        (lambda w: w.__setitem__("draws", {}), "draws"),
    ],
)
def test_load_state_names_the_faulty_member(mutate: Any, path: str) -> None:
    """conventions.md: a malformed state is invalid_state with the field path at fault."""
    wire = json.loads(json.dumps(CODEC.dump_state(ex2(3))))
    mutate(wire)
    with pytest.raises(InvalidState) as info:
        CODEC.load_state(wire)
    assert path in info.value.errors, info.value.errors


def test_wire_round_trip_of_a_finished_hand() -> None:
    for state in (hand_over(game_point=True), hand_over(start_scores=(8, 9)), ex2(7, stock_face_up=False)):
        wire = json.loads(json.dumps(CODEC.dump_state(state)))
        assert CODEC.load_state(wire) == state


# --- 1,000 seeded random matches (generic invariants, lighter than tests/test_engine_contract.py) --

OPTION_CYCLE = [
    {}, {"trump_mode": "fixed"}, {"stock_face_up": False}, {"game_point": True, "follow_rule": "follow_or_trump"},
    {"follow_rule": "follow_or_trump_compulsory", "dealer": 1}, {"trump_mode": "fixed", "stock_face_up": False},
    {"game_point": True, "trump_mode": "fixed", "follow_rule": "follow_or_trump_compulsory"}, {"start_scores": (5, 7)},
]


def _match_options(seed: int) -> Options:
    base = dict(OPTION_CYCLE[seed % len(OPTION_CYCLE)])
    base.setdefault("target", (10, 3, 1, 2)[seed % 4] if "start_scores" not in base else 10)
    return Options(**base)


@pytest.mark.slow
def test_random_matches_keep_the_invariants() -> None:
    """Generic invariants over 1,000 seeded whole matches to the target, every option exercised:
    each match ends with a winner at or above its target; on every state legal moves exist iff the
    game goes on and belong to the seat to move; the pack is conserved (hands, stock, trick, tricks);
    and on every 37th state check_state passes, every candidate move is accepted iff listed and the
    views show only visible cards; every 370th state survives the wire and sealed-form round trips."""
    names = {str(x) for x in PACK}
    sampled = states = deals = 0
    for seed in range(1000):
        options = _match_options(seed)
        state = None
        for before, move, after in random_playout(E, 2, seed, options):
            states += 1
            state = after
            deals += before.phase is Phase.PLAY and after.phase is not Phase.PLAY
            turn = E.to_move(before)
            assert turn and all(m.player in turn for m in E.legal_moves(before)), (seed, before.seq)
            held = len(before.hands[0]) + len(before.hands[1]) + len(before.stock) + len(before.trick)
            assert held + 2 * len(before.tricks) == 52, (seed, before.seq)
            if states % 37:
                continue
            sampled += 1
            E.check_state(before)
            legal_now = E.legal_moves(before)
            for cand in candidate_moves(E, before, PACK, salt=states):
                try:
                    E.apply(before, cand)
                    ok = True
                except IllegalMove:
                    ok = False
                assert ok == is_listed(cand, legal_now), (seed, before.seq, cand)
            for seat in (None, 0, 1):
                shown = _cards_in(to_wire(E.view(before, seat)), names)
                assert shown <= {str(x) for x in E.visible_cards(before, seat)}, (seed, before.seq, seat)
            if sampled % 10 == 0:
                assert CODEC.load_state(json.loads(json.dumps(CODEC.dump_state(before)))) == before
                assert CODEC.unpack(json.loads(json.dumps(CODEC.pack(before)))) == before
        assert state is not None and state.phase is Phase.GAME_OVER, seed
        assert state.winner is not None and state.scores[state.winner] >= options.target, seed
        assert E.legal_moves(state) == [] and not E.to_move(state)
    assert deals >= 2000 and sampled > 3500, (deals, sampled)


def _cards_in(value: Any, names: set[str]) -> set[str]:
    out: set[str] = set()
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            if v in names:
                out.add(v)
        elif isinstance(v, dict):
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
    return out


# --- openapi.yaml agrees with the engine --------------------------------------------------------

SCHEMAS_DOC = SPEC["components"]["schemas"]


def test_openapi_options_are_the_engines() -> None:
    """CaliforniaJackOptions: the fields of Options, with the same defaults, types and bounds as OPTION_INFO."""
    schema = SCHEMAS_DOC["CaliforniaJackOptions"]
    defaults = {f.name: f.default for f in dataclasses.fields(Options)}
    assert set(schema["properties"]) == set(defaults) == set(E.OPTION_INFO)
    assert SCHEMAS_DOC["CaliforniaJackOptionsInput"]["additionalProperties"] is False  # requests closed, responses open
    for name, prop in schema["properties"].items():
        info = E.OPTION_INFO[name]
        assert prop["default"] == to_wire(defaults[name]), name
        assert prop["type"] == info["type"] and prop["description"] == info["description"], name
        for key in ("minimum", "maximum", "enum", "minItems", "maxItems", "items"):
            assert prop.get(key) == info.get(key), (name, key)


def test_openapi_move_union_is_the_engines() -> None:
    """CaliforniaJackMove is a discriminated union on ``type`` over exactly MOVE_TYPES."""
    move = SCHEMAS_DOC["CaliforniaJackMove"]
    mapping = move["discriminator"]["mapping"]
    assert move["discriminator"]["propertyName"] == "type" and set(mapping) == set(E.MOVE_TYPES)
    for kind, ref in mapping.items():
        branch = SCHEMAS_DOC[ref.rsplit("/", 1)[-1]]
        assert branch["properties"]["type"] == {"type": "string", "const": kind}
        fields = {f.name for f in dataclasses.fields(E.MOVE_CLASSES[kind]) if f.metadata.get("wire", True)}
        assert set(branch["properties"]) == {"type", "at"} | fields


@pytest.mark.parametrize(
    ("mutate", "valid"),
    [
        (lambda w: None, True),
        (lambda w: w.pop("phase"), False),
        (lambda w: w.pop("stock"), False),
        (lambda w: w.pop("game"), True),
        (lambda w: w.__setitem__("to_move", 1), False),
        (lambda w: w["stock"].__setitem__(0, "1H"), False),
        (lambda w: w.__setitem__("colour", "red"), False),
        (lambda w: w.__setitem__("game", "schnapsen"), False),
    ],
    ids=["as-dumped", "no-phase", "no-stock", "no-game", "bad-to-move", "bad-card", "unknown-member", "other-game"],
)
def test_openapi_state_schema_checks_every_member(mutate: Any, valid: bool) -> None:
    """CaliforniaJackState keeps its member schemas under ``dependentSchemas.stock``; with ``stock``
    required that is the same contract as plain ``properties``/``required``."""
    from tests.contract import is_valid, validator_at

    wire = json.loads(json.dumps(CODEC.dump_state(ex2(3))))
    mutate(wire)
    assert is_valid(validator_at("/components/schemas/CaliforniaJackState"), wire) is valid


# --- through HTTP: whole matches, open and sealed -------------------------------------------------

BASE = "/v1/games/california_jack"


def _play_match_http(client: FlaskClient, sealed: bool, options: dict[str, Any], seed: int) -> dict[str, Any]:
    """Play a whole match with random legal moves; sealed: each seat acts with its own seat key."""
    rng = random.Random(seed)
    r = client.post(f"{BASE}/new", json={"options": options, "seed": seed})
    assert r.status_code == 201, r.json
    env = r.json
    keys = env.get("seat_keys")
    for _ in range(3000):
        if env["status"] == "finished":
            return env
        seat = env["to_move"][0]
        if sealed:
            assert keys is not None
            headers = {"X-Seat-Key": keys[seat]}
            view = client.post(f"{BASE}/state?as={seat}", json={"token": env["token"]}, headers=headers).json
            assert view["state"]["seat"] == seat and view["state"]["hands"][1 - seat] is None
            moves = view["legal_moves"]
            body: dict[str, Any] = {"token": env["token"]}
        else:
            headers, moves, body = {}, env["legal_moves"], {"state": env["state"]}
        move = moves[rng.randrange(len(moves))]
        r = client.post(f"{BASE}/moves", json={**body, "move": move}, headers=headers)
        assert r.status_code == 200, r.json
        env = r.json
    pytest.fail("match did not finish")


@pytest.mark.parametrize("sealed_mode", [False, True], ids=["open", "sealed"])
def test_whole_match_over_http(client: FlaskClient, sealed: FlaskClient, sealed_mode: bool) -> None:
    """A whole match to 10 through HTTP; every response is checked against openapi.yaml."""
    env = _play_match_http(sealed if sealed_mode else client, sealed_mode, {"game_point": True}, 3)
    assert env["status"] == "finished" and len(env["winner"]) == 1
    assert max(env["scores"]["totals"]) >= 10
    assert any(e["type"] == "game_over" for e in env["events"])


def test_face_down_views_over_http(sealed: FlaskClient) -> None:
    """Example 5 through sealed HTTP: seat 0 sees seat 1's face-down draw as null, seat 1 sees it."""
    r = sealed.post(f"{BASE}/new", json={"options": {"stock_face_up": False}, "deck": [str(x) for x in DECK_A]})
    env = r.json
    keys = env["seat_keys"]
    table = {"X-Seat-Key": env["table_key"]}
    for move in ({"type": "play", "player": 1, "card": "4H"}, {"type": "play", "player": 0, "card": "10H"}):
        env = sealed.post(f"{BASE}/moves", json={"token": env["token"], "move": move}, headers=table).json
    drawn = [e for e in env["events"] if e["type"] == "card_drawn"]
    assert [e["card"] for e in drawn] == ["QD", None]  # the public (table) view
    seat0 = sealed.post(f"{BASE}/state?as=0", json={"token": env["token"]}, headers={"X-Seat-Key": keys[0]}).json
    seat1 = sealed.post(f"{BASE}/state?as=1", json={"token": env["token"]}, headers={"X-Seat-Key": keys[1]}).json
    assert seat0["state"]["draws"][1] == {"trick": 1, "player": 1, "card": None, "public": False}
    assert seat0["state"]["known_cards"] == [["QD"], []] and seat0["state"]["stock_top"] == "3C"
    assert seat1["state"]["draws"][1]["card"] == "7H"


def test_catalogue_lists_the_options(client: FlaskClient) -> None:
    entry = client.get(f"{BASE}").json
    assert entry["move_types"] == ["play", "next_deal"]
    assert entry["options"]["start_scores"]["default"] == [0, 0]
    assert entry["options"]["trump_mode"]["enum"] == ["changing", "fixed"]


def test_next_deal_without_deck_is_seeded_over_http(client: FlaskClient) -> None:
    """§4 next hand: with a game seed, deal k uses the seeded shuffle of seed + k − 1."""
    r = client.post(f"{BASE}/new", json={"seed": 40, "options": {"target": 50}})
    env = r.json
    while env["status"] == "in_progress":
        env = client.post(f"{BASE}/moves", json={"state": env["state"], "move": env["legal_moves"][0]}).json
    env = client.post(f"{BASE}/moves", json={"state": env["state"], "move": {"type": "next_deal", "player": 1}}).json
    deck = deal_deck(PACK, 41)
    want = E.new_game(Options(dealer=1), 2, deck)
    assert env["state"]["hands"] == to_wire(want.hands) and env["state"]["stock"] == to_wire(want.stock)


def test_templates_are_filled_by_any_valid_deck() -> None:
    """§6: legal_moves in deal_over lists the next_deal template of the new dealer."""
    (template,) = E.legal_moves(OVER)
    assert is_template(template)
    assert E.apply(OVER, fill_template(template, DECK_A)).phase is Phase.PLAY
