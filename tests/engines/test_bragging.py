"""Bragging engine: one rule per test, each citing ``docs/rules/bragging.md``.

Positions come from the spec's §10 decks (or seeded shuffles) plus moves. The last part plays
1,000+ seeded random hands per player count (2 to 8) checking the accounts (no unit of money is
created or lost), the consistency of every state and that every listed move is accepted; and
plays many hands in a row over HTTP, open and sealed.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from typing import Any

import pytest
from flask.testing import FlaskClient

from service.cards import Card
from service.cards.shuffle import deal_deck
from service.engines import bragging as B
from service.engines.base import BadMove, BadSetup, IllegalMove, InvalidState, is_listed
from service.engines.bragging import (
    Blind,
    Call,
    Check,
    Expose,
    Fold,
    NoBlind,
    Options,
    Phase,
    Raise,
    ResultKind,
    State,
)
from service.engines.moves import NextDeal
from service.schemas import SCHEMAS
from service.schemas.common import to_wire
from tests.codes import section_8
from tests.playouts import candidate_moves, fill_template, is_template, random_playout

CODEC = SCHEMAS["bragging"]

# §10 decks
EX1 = ("9H AS 10C 6H 2C 7D JC AD KH QS 4D 9S 5S 3H 8C KD 2S 3S 4S 6S 7S 8S 10S JS KS 2H 4H 5H 7H 8H "
       "10H JH QH AH 2D 3D 5D 6D 8D 9D 10D JD QD 3C 4C 5C 6C 7C 9C QC KC AC")
EX2 = ("AS 7H 9D 2H KS 7D 9C 3H QS 7C 5H 4H JS 2D 6H 8H 2S 3S 4S 5S 6S 7S 8S 9S 10S 9H 10H JH QH KH "
       "AH 3D 4D 5D 6D 8D 10D JD QD KD AD 2C 3C 4C 5C 6C 8C 10C JC QC KC AC")
EX3 = ("AH 4C 8D KH 5C 9D 2S 6C 10D 3S 7C JD 4S 5S 6S 7S 8S 9S 10S JS QS KS AS 2H 3H 4H 5H 6H 7H 8H "
       "9H 10H JH QH 2D 3D 4D 5D 6D 7D QD KD AD 2C 3C 8C 9C 10C JC QC KC AC")
EX4 = ("AS 3D AH AD KS 3C 10H 10D QS 3H 2C 5C JS 9S 4D 6S 2S 3S 4S 5S 7S 8S 10S 2H 4H 5H 6H 7H 8H 9H JH QH "
       "KH 2D 5D 6D 7D 8D 9D JD QD KD 4C 6C 7C 8C 9C 10C JC QC KC AC")
EX5 = ("AH 5S AD 9C 10H 6S KD 9D 2C 7S 3S 4S 4D 8C 2H 3C 2S 8S 9S 10S JS QS KS AS 3H 4H 5H 6H 7H 8H "
       "9H JH QH KH 2D 3D 5D 6D 7D 8D 10D JD QD 4C 5C 6C 7C 10C JC QC KC AC")


# --- helpers ----------------------------------------------------------------------------------


def c(text: str) -> Card:
    return Card.parse(text)


def cs(text: str) -> tuple[Card, ...]:
    return tuple(Card.parse(t) for t in text.split())


def new(deck: str | Sequence[Card], players: int = 4, **options: Any) -> State:
    cards = cs(deck) if isinstance(deck, str) else tuple(deck)
    return B.new_game(Options(**options), players, cards)


def run(state: State, *moves: Any) -> State:
    for move in moves:
        assert is_listed(move, B.legal_moves(state)), (move, B.legal_moves(state))
        state = B.apply(state, move)
        B.check_state(state)
        assert B.money(state) == 0
    return state


def wire(value: Any) -> Any:
    """The wire form (templates compare by their minimum there; in Python only the concrete part counts)."""
    return CODEC.dump(value)


def refused(state: State, move: Any, code: str) -> None:
    with pytest.raises(IllegalMove) as info:
        B.apply(state, move)
    assert info.value.code == code, (move, info.value.code, info.value.detail)
    if code != "game_over":
        assert not is_listed(move, B.legal_moves(state)), move


def seeded(players: int, seed: int, **options: Any) -> State:
    opts = Options(**options)
    return B.new_game(opts, players, deal_deck(B.pack(opts, players), seed))


def ex1_betting() -> State:
    """Example 1 after step 7: betting, current bet 0, seat 1 to act."""
    return run(new(EX1), NoBlind(1), Expose(1, ()), Expose(2, cs("7D")), Expose(3, cs("10C JC")), Expose(0, cs("6H 9S")))


def no_blind_to_betting(state: State) -> State:
    """Everybody declines the blind and exposes nothing; the dealer turns up his first two cards."""
    state = run(state, NoBlind(B.eldest(state)))
    while state.phase is Phase.EXPOSE:
        state = run(state, Expose(state.to_move, ()))  # type: ignore[arg-type]
    if state.phase is Phase.DEALER_EXPOSE:
        state = run(state, Expose(state.dealer, state.hidden[state.dealer][:2]))
    return state


def check_around(state: State) -> State:
    while state.phase is Phase.BETTING:
        p = state.to_move
        assert p is not None
        state = run(state, Check(p) if state.contrib[p] == state.current_bet else Call(p))
    return state


# --- §2, §3: players, pack, options ---------------------------------------------------------------


@pytest.mark.parametrize("players", [0, 1, 9])
def test_players_are_2_to_8(players: int) -> None:
    """§2/§3: 2 to 8 seats; another count is invalid_players."""
    with pytest.raises(BadSetup) as info:
        B.new_game(Options(), players, B.pack(Options()))
    assert info.value.code == "invalid_players"
    for n in range(2, 9):
        assert B.new_game(Options(), n, deal_deck(B.pack(Options()), 1)).players == n


@pytest.mark.parametrize(
    "options",
    [{"pack": 40}, {"dealer": 8}, {"ante": -1}, {"min_raise": 0}, {"hand_ranking": "poker5"},
     {"tie_rule": "share"}, {"hands": 0}, {"colour": "red"}, {"pack": "52"}, {"hands": 1.5}],
)
def test_bad_options_are_invalid_option(options: dict[str, Any]) -> None:
    """§3: unknown options or out-of-range values are invalid_option."""
    with pytest.raises(BadSetup) as info:
        CODEC.load_options(options)
    assert info.value.code == "invalid_option"


def test_dealer_option_must_be_a_seat_of_the_game() -> None:
    """§3 dealer 0..players-1: a dealer beyond the seats is invalid_option on new."""
    with pytest.raises(BadSetup) as info:
        B.new_game(Options(dealer=3), 3, B.pack(Options()))
    assert info.value.code == "invalid_option"


def test_options_defaults_and_hands_null() -> None:
    """§3 defaults; ``hands`` may be null (open-ended) or a positive integer."""
    assert CODEC.load_options({}) == Options(0, 52, 1, 1, "suit_points", "split", None)
    assert CODEC.load_options({"hands": None}).hands is None
    assert CODEC.load_options({"hands": 3, "pack": 36}) == Options(pack=36, hands=3)


def test_pack_36_option_deals_ranks_6_to_ace() -> None:
    """§2 ``pack = 36``: ranks 6…A; a 52-card deck is then invalid_deck, and 2-5 are invalid_card."""
    assert len(B.pack(Options(pack=36))) == 36 and {c.rank for c in B.pack(Options(pack=36))} == set("6789JQKA") | {"10"}
    with pytest.raises(BadSetup) as info:
        new(EX1, pack=36)
    assert info.value.code == "invalid_deck"
    state = seeded(8, 5, pack=36)
    state = run(state, NoBlind(1))
    assert len(state.deck) == 36 - 16
    refused(state, Expose(1, cs("2H")), "invalid_card")
    state = no_blind_to_betting(seeded(8, 5, pack=36))
    assert len(state.dead) == 36 - 32


def test_deck_must_be_the_pack() -> None:
    """CONVENTIONS / §8: a deck that is not exactly the pack is invalid_deck."""
    deck = cs(EX1)
    for bad in (deck[:-1], deck[:-1] + deck[:1]):
        with pytest.raises(BadSetup) as info:
            B.new_game(Options(), 4, bad)
        assert info.value.code == "invalid_deck"


# --- §4 step 1: antes ------------------------------------------------------------------------------


def test_every_seat_pays_the_ante() -> None:
    """§4.1: pot = carry + ante per seat; balances go down by the ante (option ``ante``)."""
    state = new(EX1)
    assert (state.pot, state.balances) == (4, (-1, -1, -1, -1))
    state = new(EX1, ante=5)
    assert (state.pot, state.balances) == (20, (-5, -5, -5, -5))
    state = new(EX1, ante=0)
    assert (state.pot, state.balances) == (0, (0, 0, 0, 0))


# --- §4 / §6.1: the blind phase --------------------------------------------------------------------


def test_only_the_eldest_may_open_the_blind() -> None:
    """§6.1: the eldest opens; his no_blind ends the blind phase at once and the deal follows."""
    state = new(EX1, dealer=2)
    assert state.to_move == 3 and B.eldest(state) == 3
    state = run(state, NoBlind(3))
    assert state.phase is Phase.EXPOSE and state.to_move == 3
    assert state.blinds == (0, 0, 0, 0)


def test_over_blind_must_exceed_the_highest_blind() -> None:
    """§6.1 / §9.5: every over-blind exceeds the highest blind so far; listed with min_amount."""
    state = run(new(EX2), Blind(1, 2))
    assert wire(B.legal_moves(state)) == wire([NoBlind(2), Blind(2, min_amount=3)])
    refused(state, Blind(2, 2), "blind_too_small")
    refused(state, Blind(2, 1), "blind_too_small")
    state = run(state, NoBlind(2), Blind(3, 3))
    refused(state, Blind(0, 3), "blind_too_small")
    state = run(state, Blind(0, 4))
    assert state.blinds == (4, 2, 0, 3) and state.phase is Phase.EXPOSE
    assert state.to_move == 2  # the only seat that is neither dealer nor blind staker


def test_blind_amount_must_be_a_positive_integer() -> None:
    """§6.1 / §8: invalid_amount before blind_too_small; a stake above 10^9 is refused too."""
    state = run(new(EX2), Blind(1, 2))
    refused(state, Blind(2, 0), "invalid_amount")
    refused(state, Blind(2, -4), "invalid_amount")
    refused(state, Blind(2, B.MAX_STAKE + 1), "invalid_amount")
    assert is_listed(Blind(2, B.MAX_STAKE), B.legal_moves(state))
    assert is_listed(Blind(2, 3), B.legal_moves(state))


def test_no_blind_listed_beyond_the_stake_bound() -> None:
    """§6.1 with the 10^9 stake bound: after a blind of 10^9 no over-blind can exceed it, so none is listed."""
    state = run(new(EX2), Blind(1, B.MAX_STAKE))
    assert B.legal_moves(state) == [NoBlind(2)]
    refused(state, Blind(2, B.MAX_STAKE + 1), "invalid_amount")
    refused(state, Blind(2, B.MAX_STAKE), "blind_too_small")
    # one below the bound: exactly one over-blind, the bound itself, is listed and accepted
    state = run(new(EX2), Blind(1, B.MAX_STAKE - 1))
    assert is_listed(Blind(2, B.MAX_STAKE), B.legal_moves(state)) and not is_listed(Blind(2, B.MAX_STAKE - 1), B.legal_moves(state))
    assert B.apply(state, Blind(2, B.MAX_STAKE)).blinds[2] == B.MAX_STAKE


def test_blind_stakes_move_money_into_the_pot() -> None:
    """§6.1: blinds[p] = amount, balance -= amount, pot += amount."""
    state = run(new(EX2), Blind(1, 2), Blind(2, 3))
    assert state.blinds == (0, 2, 3, 0)
    assert state.balances == (-1, -3, -4, -1) and state.pot == 9


def test_the_blind_phase_ends_after_the_dealer() -> None:
    """§6.1: each seat decides once, the dealer last; then the first two rounds are dealt."""
    state = run(new(EX2), Blind(1, 2), NoBlind(2), NoBlind(3))
    assert state.phase is Phase.BLIND and state.to_move == 0
    state = run(state, NoBlind(0))
    assert state.phase is Phase.EXPOSE and [len(h) for h in state.hidden] == [2, 2, 2, 2]


# --- §4 steps 3–7: the deal ---------------------------------------------------------------------


def test_first_two_rounds_are_dealt_face_down_in_order() -> None:
    """§4.3: deck[r*n + i] goes to order[i], all face down."""
    deck = deal_deck(B.pack(Options()), 11)
    state = run(B.new_game(Options(dealer=3), 5, deck), NoBlind(4))
    for i, seat in enumerate(B.order(5, 3)):
        assert state.hidden[seat] == (deck[i], deck[5 + i])
    assert state.up == ((),) * 5 and state.deck == deck[10:]


def test_exposure_decides_how_the_last_two_cards_fall() -> None:
    """§4.5 table: 0 exposed → both up; 1 → round-3 up, round-4 down (§9.9); 2 → both down;
    the dealer and blind stakers get both down. Every non-blind, non-dealer seat ends 2 up, 2 down."""
    deck = deal_deck(B.pack(Options()), 3)
    n = 5
    state = B.new_game(Options(), n, deck)
    state = run(state, Blind(1, 1), NoBlind(2), NoBlind(3), NoBlind(4), NoBlind(0))
    h = {s: state.hidden[s] for s in range(n)}
    state = run(state, Expose(2, ()), Expose(3, h[3][:1]), Expose(4, h[4]))
    r3 = {seat: deck[2 * n + i] for i, seat in enumerate(B.order(n, 0))}
    r4 = {seat: deck[3 * n + i] for i, seat in enumerate(B.order(n, 0))}
    assert state.up[2] == (r3[2], r4[2]) and state.hidden[2] == h[2]
    assert state.up[3] == (h[3][0], r3[3]) and state.hidden[3] == (h[3][1], r4[3])
    assert state.up[4] == h[4] and state.hidden[4] == (r3[4], r4[4])
    assert state.up[1] == () and state.hidden[1] == h[1] + (r3[1], r4[1])  # blind staker
    assert state.up[0] == () and state.hidden[0] == h[0] + (r3[0], r4[0])  # dealer, before exposing
    assert state.exposed_count == (None, None, 0, 1, 2)
    assert state.phase is Phase.DEALER_EXPOSE and state.dead == deck[4 * n :]


def test_exposure_phase_is_skipped_without_eligible_seats() -> None:
    """§6.2: heads-up, a blind eldest leaves nobody to expose; the rounds follow at once."""
    state = run(seeded(2, 4), Blind(1, 1), NoBlind(0))
    assert state.phase is Phase.DEALER_EXPOSE and [len(h) for h in state.hidden] == [4, 4]


def test_expose_checks_duplicate_count_and_hand() -> None:
    """§6.2: duplicate_card, then wrong_number_of_cards (more than 2), then card_not_in_hand."""
    state = run(new(EX1), NoBlind(1))
    refused(state, Expose(1, cs("9H 9H")), "duplicate_card")
    refused(state, Expose(1, cs("9H 2C AS")), "wrong_number_of_cards")
    refused(state, Expose(1, cs("9H 9H 2C")), "duplicate_card")
    refused(state, Expose(1, cs("AS")), "card_not_in_hand")
    refused(state, Expose(1, cs("AS AS AS")), "duplicate_card")


def test_exposed_cards_may_be_named_in_any_order() -> None:
    """§6.2: a listed exposure is filled by the same cards in any order; hidden order is kept."""
    state = run(new(EX1), NoBlind(1), Expose(1, cs("2C 9H")))
    assert state.up[1] == cs("9H 2C") and state.hidden[1] == ()
    assert state.exposed_count[1] == 2


def test_dealer_exposes_exactly_two_of_four() -> None:
    """§6.3: the dealer (no blind) turns up any two of his four: the 6 pairs are listed."""
    state = run(new(EX1), NoBlind(1), Expose(1, ()), Expose(2, ()), Expose(3, ()))
    legal = B.legal_moves(state)
    assert len(legal) == 6 and all(isinstance(m, Expose) and len(m.cards) == 2 for m in legal)
    refused(state, Expose(0, ()), "wrong_number_of_cards")
    refused(state, Expose(0, cs("6H AD 9S")), "wrong_number_of_cards")
    refused(state, Expose(0, cs("6H 6H")), "duplicate_card")
    state = run(state, Expose(0, cs("KD AD")))
    assert state.up[0] == cs("AD KD") and state.hidden[0] == cs("6H 9S")


def test_blind_dealer_skips_the_dealer_exposure() -> None:
    """§6.3 / §9.7: a dealer who over-blinds keeps all four cards hidden."""
    state = run(new(EX2), Blind(1, 2), Blind(2, 3), NoBlind(3), Blind(0, 5), Expose(3, ()))
    assert state.phase is Phase.BETTING and len(state.hidden[0]) == 4 and state.up[0] == ()


def test_dead_cards_and_deck_are_never_shown() -> None:
    """§4.6 / §5: dead cards and the undealt deck appear in no view (only their counts)."""
    state = ex1_betting()
    dead = {str(x) for x in state.dead}
    for seat in (None, 0, 1, 2, 3):
        text = json.dumps(to_wire(B.view(state, seat)))
        assert not any(f'"{d}"' in text for d in dead)
        assert B.view(state, seat)["dead_count"] == 36


# --- §5: what each seat sees -----------------------------------------------------------------------


def test_hidden_cards_are_seen_by_their_owner_only() -> None:
    """§5: a seat sees its own face-down cards (a blind staker too, §9.10); others see counts."""
    state = run(new(EX2), Blind(1, 2), NoBlind(2), NoBlind(3), NoBlind(0))
    view = B.view(state, 1)
    assert view["hand"] == cs("AS KS") and view["hidden_counts"] == [2, 2, 2, 2]
    assert "hand" not in B.view(state, None)
    assert B.visible_cards(state, 2) == frozenset(cs("7H 7D"))
    assert B.visible_cards(state, None) == frozenset()


def test_showdown_reveals_active_hands_only() -> None:
    """§5 / §6.4: at the showdown the active seats' hands are shown; a folded seat's hidden cards never."""
    state = run(ex1_betting(), Check(1), Raise(2, 2), Raise(3, 4), Call(0), Fold(1), Call(2))
    assert state.last_result is not None
    shown = {s for s, _ in state.last_result.hands}
    assert shown == {0, 2, 3}
    public = B.visible_cards(state, None)
    assert not set(state.hidden[1]) & public and set(state.hidden[3]) <= public


def test_uncontested_winner_keeps_his_cards_hidden() -> None:
    """§6.4: when all others fold, the last seat takes the pot with no showdown; nothing revealed."""
    state = ex1_betting()
    state = run(state, Raise(1, 2), Fold(2), Fold(3), Fold(0))
    r = state.last_result
    assert r is not None and r.kind is ResultKind.UNCONTESTED and r.winners == (1,) and r.hands == ()
    assert state.balances == (-1, 3, -1, -1)
    assert not set(state.hidden[1]) & B.visible_cards(state, 0)


# --- §6.4: betting ---------------------------------------------------------------------------------


def test_first_to_act_is_after_the_highest_blind_staker() -> None:
    """§6.4: with blinds, the seat after the highest (last) blind staker acts first, wrapping round."""
    state = run(new(EX2), Blind(1, 1), NoBlind(2), Blind(3, 2), NoBlind(0))
    while state.phase is not Phase.BETTING:
        p = state.to_move
        state = run(state, Expose(p, ()) if state.phase is Phase.EXPOSE else Expose(p, state.hidden[p][:2]))  # type: ignore[arg-type]
    assert state.to_move == 0 and state.contrib == (0, 1, 0, 2) and state.current_bet == 2
    assert wire(B.legal_moves(state)) == wire([Fold(0), Call(0, 2), Raise(0, min_to=3)])


def test_without_blinds_the_eldest_acts_first() -> None:
    """§6.4: no blind → the eldest opens the betting; current_bet 0; everybody pending."""
    state = ex1_betting()
    assert state.to_move == 1 and state.current_bet == 0 and state.pending == (0, 1, 2, 3)


def test_blind_staker_keeps_the_option() -> None:
    """§6.4 / §9.11: blinds are live; when the action comes back unraised the blind may check or raise."""
    state = run(new(EX2), Blind(1, 3), NoBlind(2), NoBlind(3), NoBlind(0))
    while state.phase is not Phase.BETTING:
        p = state.to_move
        state = run(state, Expose(p, ()) if state.phase is Phase.EXPOSE else Expose(p, state.hidden[p][:2]))  # type: ignore[arg-type]
    assert state.to_move == 2
    state = run(state, Call(2), Call(3), Call(0))
    assert state.to_move == 1 and wire(B.legal_moves(state)) == wire([Fold(1), Check(1), Raise(1, min_to=4)])
    state = run(state, Raise(1, 5))
    assert state.pending == (0, 2, 3) and state.to_move == 2


def test_check_and_call_depend_on_facing_a_bet() -> None:
    """§6.4: check only when contrib == current_bet (else cannot_check); call only below it
    (else nothing_to_call); a call listed with what it costs, sent with or without that amount."""
    state = ex1_betting()
    refused(state, Call(1), "nothing_to_call")
    refused(state, Call(1, 1), "nothing_to_call")
    state = run(state, Raise(1, 3))
    refused(state, Check(2), "cannot_check")
    assert Call(2, 3) in B.legal_moves(state)
    refused(state, Call(2, 2), "invalid_amount")
    refused(state, Call(2, 0), "invalid_amount")
    after = run(state, Call(2, 3))
    assert after == run(state, Call(2)) and after.contrib == (0, 3, 3, 0)


def test_raise_must_reach_current_bet_plus_min_raise() -> None:
    """§6.4 / §3 ``min_raise``: to ≥ current_bet + min_raise, else raise_too_small; to ≥ 1 else invalid_amount."""
    state = ex1_betting()
    refused(state, Raise(1, 0), "invalid_amount")
    state = run(state, Raise(1, 3))
    refused(state, Raise(2, 3), "raise_too_small")
    assert is_listed(Raise(2, 4), B.legal_moves(state))
    big = no_blind_to_betting(new(EX1, min_raise=5))
    assert wire(B.legal_moves(big)[-1]) == wire(Raise(1, min_to=5))
    refused(big, Raise(1, 4), "raise_too_small")
    big = run(big, Raise(1, 5))
    refused(big, Raise(2, 9), "raise_too_small")
    assert is_listed(Raise(2, 10), B.legal_moves(big))


def test_raise_pays_the_difference_and_reopens_the_action() -> None:
    """§6.4: a raise pays to − contrib; current_bet = to; every other non-folded seat is pending again."""
    state = run(ex1_betting(), Raise(1, 2), Fold(2), Raise(3, 5))
    assert state.contrib == (0, 2, 0, 5) and state.current_bet == 5
    assert state.pending == (0, 1) and state.pot == 4 + 7
    state = run(state, Call(0), Raise(1, 7))
    assert state.balances[1] == -1 - 7 and state.pending == (0, 3)


def test_turn_skips_folded_and_settled_seats() -> None:
    """§6.4: the turn passes clockwise to the next non-folded seat still pending."""
    state = run(ex1_betting(), Fold(1), Check(2), Check(3))
    assert state.to_move == 0
    state = run(state, Raise(0, 1))
    assert state.to_move == 2 and state.pending == (2, 3)


def test_betting_ends_when_everybody_has_acted() -> None:
    """§6.4: once pending is empty, the showdown follows."""
    state = check_around(ex1_betting())
    assert state.phase is Phase.DEAL_OVER and state.last_result is not None
    assert state.last_result.kind is ResultKind.SHOWDOWN and state.pot == 0


# --- §7.2: hand values -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cards", "value"),
    [("AS KS QS JS", (1, 41)), ("9H 2C KH 5S", (1, 19)), ("7H 7D 7C 2D", (2, 7)), ("6S 6H 6D 6C", (3, 6)),
     ("AS AH 2C 3D", (1, 11)), ("2S 3H 4D 5C", (1, 5)), ("AS 10S 10H 10D", (2, 10))],
)
def test_suit_points_values(cards: str, value: tuple[int, ...]) -> None:
    """§7.2 suit_points: four of a rank (3) > three of a rank (2) > best suit total (1); pairs count nothing."""
    assert B.hand_value(cs(cards), "suit_points") == value


@pytest.mark.parametrize(
    ("cards", "value"),
    [("9S 9H 9D 9C", (8, 9)), ("5H 6H 7H 8H", (7, 8)), ("AD 2D 3D 4D", (7, 4)), ("QD QS QC 4C", (6, 12, 4)),
     ("2H 9H JH KH", (5, 13, 11, 9, 2)), ("5H 6D 7C 8S", (4, 8)), ("JS QH KD AC", (4, 14)), ("AS 2H 3D 4C", (4, 4)),
     ("KS KH 4D 4C", (3, 13, 4)), ("7S 7H AD 2C", (2, 7, 14, 2)), ("AS 9H 7D 2C", (1, 14, 9, 7, 2)),
     ("QS KH AD 2C", (1, 14, 13, 12, 2)), ("AS 6H 7D 8C", (1, 14, 8, 7, 6))],
)
def test_poker4_values(cards: str, value: tuple[int, ...]) -> None:
    """§7.2 poker4: Four Card Poker order; A high in J-Q-K-A, low only in A-2-3-4; A-6-7-8 (36-card
    pack) is no straight; no wrap-around."""
    assert B.hand_value(cs(cards), "poker4") == value


def test_hand_ranking_option_changes_the_winner() -> None:
    """§3 ``hand_ranking``: the same cards, another winner (Example 4's deck under poker4)."""
    assert _winners(EX4) == (2,)  # three 3s beat 41 points
    assert _winners(EX4, hand_ranking="poker4") == (1,)  # AS KS QS JS is a straight flush


# --- §7.3: ties ------------------------------------------------------------------------------------


def test_tie_split_gives_the_remainder_from_the_eldest() -> None:
    """§7.3 split: floor(P/k) each, the P mod k remainder one each to the tied seats in order."""
    state = run(new(EX5), NoBlind(1), Expose(1, ()), Expose(2, ()), Expose(3, ()), Expose(0, cs("9C 9D")),
                Raise(1, 1), Call(2), Call(3), Fold(0))
    assert state.last_result is not None and dict(state.last_result.shares) == {1: 4, 3: 3}
    # no antes, a pot of 9 with the dealer still in: the tied seats 1 and 3 get 5 and 4
    state = run(new(EX5, ante=0), NoBlind(1), Expose(1, ()), Expose(2, ()), Expose(3, ()), Expose(0, cs("9C 9D")),
                Raise(1, 2), Fold(2), Raise(3, 3), Call(0), Call(1))
    assert state.last_result is not None and state.last_result.winners == (1, 3)
    assert dict(state.last_result.shares) == {1: 5, 3: 4}


def test_tie_carry_passes_the_pot_to_the_next_hand() -> None:
    """§7.3 carry: nobody is paid; carry = P (kind tie_carried); the next hand's pot = carry + antes."""
    moves = (NoBlind(1), Expose(1, ()), Expose(2, ()), Expose(3, ()), Expose(0, cs("9C 9D")),
             Raise(1, 1), Call(2), Call(3), Fold(0))
    state = run(new(EX5, tie_rule="carry"), *moves)
    r = state.last_result
    assert r is not None and r.kind is ResultKind.TIE_CARRIED and r.winners == (1, 3) and r.shares == ()
    assert state.carry == 7 and state.pot == 0 and state.balances == (-1, -2, -2, -2)
    state = run(state, NextDeal(1, cs(EX1)))
    assert state.pot == 7 + 4 and state.carry == 0 and state.balances == (-2, -3, -3, -3)
    assert state.last_result is None and state.dealer == 1 and state.hand_number == 2


def test_carry_left_unresolved_when_the_game_ends() -> None:
    """§7.5: with ``hands`` = N, a pot carried by hand N stays in ``carry``; money still balances."""
    moves = (NoBlind(1), Expose(1, ()), Expose(2, ()), Expose(3, ()), Expose(0, cs("9C 9D")),
             Raise(1, 1), Call(2), Call(3), Fold(0))
    state = run(new(EX5, tie_rule="carry", hands=1), *moves)
    assert state.phase is Phase.GAME_OVER and state.carry == 7 and B.money(state) == 0


# --- §6.5, §7.4, §7.5: next hand, end of the game -----------------------------------------------


def test_next_hand_is_dealt_by_the_left_neighbour() -> None:
    """§6.5 / §7.4: only (dealer+1) % n may deal next; the deck must be the pack; hand_number + 1."""
    state = check_around(ex1_betting())
    assert B.to_move(state) == frozenset({1}) and state.to_move is None
    assert B.legal_moves(state) == [NextDeal(1, pack=B.pack(Options()))]
    refused(state, NextDeal(2, cs(EX1)), "not_your_turn")
    refused(state, NextDeal(1, cs(EX1)[:-1]), "invalid_deck")
    refused(state, Fold(1), "wrong_phase")
    state = run(state, NextDeal(1, cs(EX2)))
    assert state.dealer == 1 and state.hand_number == 2 and state.to_move == 2 and state.phase is Phase.BLIND
    assert state.balances == (-2, -2, -2, 2)


def test_hands_option_ends_the_game() -> None:
    """§3 ``hands`` / §7.5: after hand N the phase is game_over; the winners have the highest
    balance; every move is then game_over."""
    state = check_around(no_blind_to_betting(new(EX1, hands=2)))
    assert state.phase is Phase.DEAL_OVER and B.outcome(state) is None
    state = check_around(no_blind_to_betting(run(state, NextDeal(1, cs(EX2)))))
    assert state.phase is Phase.GAME_OVER and B.status(state) == "finished" and B.to_move(state) == frozenset()
    top = max(state.balances)
    outcome = B.outcome(state)
    assert outcome is not None and outcome.winners == frozenset(s for s in range(4) if state.balances[s] == top)
    for move in (NextDeal(2, cs(EX1)), Fold(0), BadMove("unknown_move_type", "x", "dance", 0)):
        refused(state, move, "game_over")
    assert B.legal_moves(state) == []


def test_open_ended_by_default() -> None:
    """§7.5: hands = null never ends by itself."""
    state = new(EX1)
    for k in range(6):
        state = check_around(no_blind_to_betting(state))
        assert state.phase is Phase.DEAL_OVER
        state = run(state, NextDeal((state.dealer + 1) % 4, deal_deck(B.pack(Options()), k)))
    assert state.hand_number == 7


def test_status_and_envelope_to_move() -> None:
    """§7.5 envelope mapping: in_progress while playing, deal_over between hands; to_move the next dealer."""
    state = new(EX1)
    assert B.status(state) == "in_progress" and B.to_move(state) == frozenset({1})
    state = check_around(no_blind_to_betting(state))
    assert B.status(state) == "deal_over" and B.to_move(state) == frozenset({1})
    assert B.scores(state, None)["totals"] == list(state.balances)


# --- §6 / §8: order of the checks ----------------------------------------------------------------------

SPEC_CODES = set(section_8("bragging"))  # §8's table (tests/codes.py)


def _parse(move: dict[str, Any], players: int = 4) -> Any:
    return CODEC.load_move(move, players)


def test_check_order_of_section_6() -> None:
    """§6: game_over; unknown_move_type / invalid_player; wrong_phase; not_your_turn; the move's own checks."""
    state = new(EX1)
    refused(state, _parse({"type": "dance", "player": 1}), "unknown_move_type")
    refused(state, _parse({"type": "dance", "player": 9}), "unknown_move_type")
    refused(state, _parse({"type": "fold", "player": 9}), "invalid_player")
    refused(state, _parse({"type": "fold", "player": 2}), "wrong_phase")
    refused(state, _parse({"type": "blind", "player": 2, "amount": 0}), "not_your_turn")
    refused(state, _parse({"type": "blind", "player": 1, "amount": "x"}), "invalid_amount")
    refused(state, _parse({"type": "raise", "player": 1, "to": "x"}), "wrong_phase")
    state = run(state, NoBlind(1))
    refused(state, _parse({"type": "expose", "player": 2, "cards": ["ZZ"]}), "not_your_turn")
    refused(state, _parse({"type": "expose", "player": 1, "cards": ["ZZ"]}), "invalid_card")
    refused(state, _parse({"type": "expose", "player": 1, "cards": "9H"}), "invalid_move")
    refused(state, _parse({"type": "blind", "player": 1}), "invalid_move")


def test_wire_moves_parse_to_the_engine_moves() -> None:
    """§6 move fields on the wire: amount, cards, to; call's amount optional; templates dump their minimum."""
    assert _parse({"type": "blind", "player": 1, "amount": 3}) == Blind(1, 3)
    assert _parse({"type": "call", "player": 2}) == Call(2)
    assert _parse({"type": "call", "player": 2, "amount": 4}) == Call(2, 4)
    assert _parse({"type": "raise", "player": 0, "to": 7}) == Raise(0, 7)
    assert _parse({"type": "expose", "player": 3, "cards": ["10C", "JC"]}) == Expose(3, cs("10C JC"))
    assert isinstance(_parse({"type": "raise", "player": 0, "to": 7, "min_to": 3}), BadMove)
    assert CODEC.dump(Blind(1, min_amount=2)) == {"type": "blind", "player": 1, "min_amount": 2}
    assert CODEC.dump(Raise(1, min_to=2)) == {"type": "raise", "player": 1, "min_to": 2}
    assert CODEC.dump(Call(1, 2)) == {"type": "call", "player": 1, "amount": 2}


def _provoke() -> dict[str, Any]:
    """One refusal (or setup failure) per §8 code, reached through the engine."""
    got: dict[str, Any] = {}

    def code_of(fn: Any) -> str:
        try:
            fn()
        except (IllegalMove, BadSetup) as exc:
            return exc.code
        raise AssertionError("accepted")

    betting = ex1_betting()
    after_raise = B.apply(betting, Raise(1, 3))
    expose = B.apply(new(EX1), NoBlind(1))
    over = check_around(no_blind_to_betting(new(EX1, hands=1)))
    deal_over = check_around(ex1_betting())
    cases = {
        "invalid_players": lambda: B.new_game(Options(), 9, cs(EX1)),
        "invalid_option": lambda: CODEC.load_options({"pack": 40}),
        "invalid_deck": lambda: B.apply(deal_over, NextDeal(1, cs(EX1)[1:])),
        "game_over": lambda: B.apply(over, Fold(0)),
        "unknown_move_type": lambda: B.apply(betting, _parse({"type": "bet", "player": 1})),
        "invalid_player": lambda: B.apply(betting, _parse({"type": "fold", "player": 4})),
        "wrong_phase": lambda: B.apply(betting, NoBlind(1)),
        "not_your_turn": lambda: B.apply(betting, Fold(2)),
        "invalid_amount": lambda: B.apply(betting, Raise(1, -1)),
        "blind_too_small": lambda: B.apply(B.apply(new(EX2), Blind(1, 2)), Blind(2, 2)),
        "duplicate_card": lambda: B.apply(expose, Expose(1, cs("9H 9H"))),
        "wrong_number_of_cards": lambda: B.apply(expose, Expose(1, cs("9H 2C AS"))),
        "card_not_in_hand": lambda: B.apply(expose, Expose(1, cs("AS"))),
        "cannot_check": lambda: B.apply(after_raise, Check(2)),
        "nothing_to_call": lambda: B.apply(betting, Call(1)),
        "raise_too_small": lambda: B.apply(after_raise, Raise(2, 3)),
    }
    for code, fn in cases.items():
        got[code] = code_of(fn)
    return got


def test_every_section_8_code_is_provoked() -> None:
    """§8: each code is provoked at least once, and the set provoked is exactly §8's table."""
    got = _provoke()
    assert {k: v for k, v in got.items() if k != v} == {}
    assert set(got) == SPEC_CODES


def _winners(deck: str, **options: Any) -> tuple[int, ...]:
    state = check_around(no_blind_to_betting(new(deck, **options)))
    assert state.last_result is not None
    return state.last_result.winners


def _ex5_tie(**options: Any) -> State:
    return run(new(EX5, **options), NoBlind(1), Expose(1, ()), Expose(2, ()), Expose(3, ()), Expose(0, cs("9C 9D")),
               Raise(1, 1), Call(2), Call(3), Fold(0))


def test_every_option_changes_behaviour() -> None:
    """§3: each option, set away from its default, changes what happens on the same deck."""
    base = check_around(no_blind_to_betting(new(EX1)))
    changed = {
        "dealer": new(EX1, dealer=1).to_move != new(EX1).to_move,
        "pack": len(new(deal_deck(B.pack(Options(pack=36)), 1), pack=36).deck) == 36,
        "ante": new(EX1, ante=2).pot != new(EX1).pot,
        "min_raise": wire(B.legal_moves(ex1_betting())) != wire(B.legal_moves(no_blind_to_betting(new(EX1, min_raise=2)))),
        "hand_ranking": _winners(EX4, hand_ranking="poker4") != _winners(EX4),
        "tie_rule": _ex5_tie(tie_rule="carry").balances != _ex5_tie().balances,
        "hands": check_around(no_blind_to_betting(new(EX1, hands=1))).phase != base.phase,
    }
    assert set(changed) == {f for f in B.Options.__dataclass_fields__}
    assert all(changed.values()), changed


# --- check_state ----------------------------------------------------------------------------


def test_check_state_refuses_money_out_of_thin_air() -> None:
    """§2 invariant: sum(balances) + pot + carry == 0; a state breaking it is invalid_state."""
    state = ex1_betting()
    with pytest.raises(InvalidState) as info:
        B.check_state(state._replace(pot=state.pot + 1))
    assert "balances" in info.value.errors
    with pytest.raises(InvalidState):
        B.check_state(state._replace(hidden=(state.hidden[1],) + state.hidden[1:]))
    with pytest.raises(InvalidState):
        B.check_state(state._replace(to_move=None))


@pytest.mark.parametrize("pending", [(3, 2, 1, 0), (0, 1, 2, 3, 0), (9, 1, 2, 3)], ids=["out_of_order", "twice", "no_seat"])
def test_check_state_pending_lists_distinct_seats_in_seat_order(pending: tuple[int, ...]) -> None:
    """§5 ``pending``: the seats still to act, each once, kept in seat order; anything else is
    invalid_state at ``pending``."""
    state = ex1_betting()
    assert state.pending == (0, 1, 2, 3)
    with pytest.raises(InvalidState) as info:
        B.check_state(state._replace(pending=pending))
    assert list(info.value.errors) == ["pending"], info.value.errors


def _broken_states() -> list[tuple[str, State]]:
    betting = ex1_betting()
    dealer_expose = run(new(EX1), NoBlind(1), Expose(1, ()), Expose(2, ()), Expose(3, ()))
    blind = run(new(EX2), Blind(1, 2))
    over = check_around(ex1_betting())
    return [
        ("betting: to_move not pending", betting._replace(to_move=None)),
        ("betting: a folded seat pending", betting._replace(folded=(False, True, False, False))),
        ("betting: current_bet is not the highest contrib", betting._replace(current_bet=3)),
        ("dealer_expose by a blind dealer", dealer_expose._replace(blinds=(1, 0, 0, 0), pot=5, balances=(-2, -1, -1, -1))),
        ("blind: an exposure count", blind._replace(exposed_count=(None, None, 1, None))),
        ("blind: over-blind not above the blind", blind._replace(blinds=(0, 2, 2, 0), to_move=3, pot=8, balances=(-1, -3, -3, -1))),
        ("blind: a card dealt", blind._replace(hidden=(blind.deck[:1], (), (), ()), deck=blind.deck[1:])),
        ("deal_over: the pot unpaid", over._replace(pot=1, balances=(over.balances[0] - 1, *over.balances[1:]))),
        ("carry during a hand", betting._replace(carry=1, balances=(betting.balances[0] - 1, *betting.balances[1:]))),
        ("game_over without a hands limit", over._replace(phase=Phase.GAME_OVER)),
    ]


@pytest.mark.parametrize(("name", "state"), _broken_states(), ids=[n for n, _ in _broken_states()])
def test_check_state_refuses_impossible_positions(name: str, state: State) -> None:
    """conventions.md: a state that could not arise in play is invalid_state, with a field path."""
    with pytest.raises(InvalidState) as info:
        B.check_state(state)
    assert info.value.code == "invalid_state" and info.value.errors


def test_a_blind_template_is_filled_only_by_the_seat_to_move() -> None:
    """§6.1, conventions.md templates: the listed blind template ``{"type": "blind", "player": p}``
    is filled by a blind of seat p in range, never by another seat's blind."""
    state = new(EX1)
    listed = B.legal_moves(state)
    assert state.to_move == 1
    assert is_listed(Blind(1, 5), listed)
    assert not any(is_listed(Blind(p, 5), listed) for p in (0, 2, 3))


def test_house_limit_is_ten_to_the_fifteen() -> None:
    """House limits: the limit is 10^15; a balance or carry beyond it (not at it) ends the game."""
    state = new(EX1)
    limit = 10**15
    assert not B.past_house_limit(state._replace(balances=(limit, -limit, 0, 0), carry=limit))
    assert B.past_house_limit(state._replace(balances=(limit + 1, -limit - 1, 0, 0)))
    assert B.past_house_limit(state._replace(carry=limit + 1))


def test_state_round_trips_through_the_wire() -> None:
    """§5: dump → JSON → load gives the state back (derived values ignored), mid-hand and after a showdown."""
    for state in (ex1_betting(), check_around(ex1_betting())):
        wire = json.loads(json.dumps(CODEC.dump_state(state)))
        assert CODEC.load_state(wire) == state
        assert wire["last_result"] is None or set(wire["last_result"]["hands"]) == {"0", "1", "2", "3"}


# --- money conservation over many seeded hands -------------------------------------------------

VARIANTS = (
    {}, {"tie_rule": "carry"}, {"hand_ranking": "poker4", "min_raise": 2}, {"pack": 36, "ante": 0},
    {"ante": 3, "tie_rule": "carry", "hand_ranking": "poker4"},
)
HANDS_PER_MATCH = 5


@pytest.mark.parametrize("players", B.PLAYER_COUNTS)
def test_money_is_conserved_over_1000_seeded_hands(players: int) -> None:
    """§2: no unit of money is ever created or lost. 1,000+ seeded random hands per player count
    (tests/playouts.py random_playout, options cycled): on every state money(state) == 0, the
    state is consistent and the pot is paid out exactly at each hand's end; on a sample of states,
    every listed move is accepted, a candidate move is accepted iff listed, and the wire and sealed
    forms round-trip (the cheaper half of tests/test_engine_contract.py, over 5x the hands)."""
    hands = states = 0
    for seed in range(1000 // HANDS_PER_MATCH + 1):
        options = Options(hands=HANDS_PER_MATCH, dealer=seed % players, **VARIANTS[seed % len(VARIANTS)])
        for before, move, after in random_playout(B, players, seed, options):
            assert B.money(after) == 0, (seed, move)
            B.check_state(after)
            if after.phase in (Phase.DEAL_OVER, Phase.GAME_OVER) and before.phase is Phase.BETTING:
                hands += 1
                r = after.last_result
                assert r is not None and after.pot == 0
                assert sum(v for _, v in r.shares) + after.carry == r.pot
            states += 1
            if states % 7 == 0:  # every listed move is accepted (a template once filled)
                for listed in B.legal_moves(before):
                    B.apply(before, fill_template(listed, deal_deck(B.pack(options), 1)) if is_template(listed) else listed)
            if states % 11 == 0:  # legality has one truth: a candidate is accepted iff listed
                legal = B.legal_moves(before)
                for cand in candidate_moves(B, before, salt=states):
                    try:
                        B.apply(before, cand)
                        ok = True
                    except IllegalMove:
                        ok = False
                    assert ok == is_listed(cand, legal), (seed, cand)
            if states % 29 == 0:  # the wire and sealed forms give the state back
                assert CODEC.load_state(json.loads(json.dumps(CODEC.dump_state(after)))) == after
                assert CODEC.unpack(json.loads(json.dumps(CODEC.pack(after)))) == after
    assert hands >= 1000


# --- many hands in a row over HTTP ---------------------------------------------------------------


def _concrete(move: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A listed wire move made concrete: amounts from their minimum (next_deal: the service shuffles)."""
    out = {k: v for k, v in move.items() if not k.startswith("min_")}
    for key, value in move.items():
        if key.startswith("min_"):
            out[key[4:]] = value + rng.choice((0, 0, 1, 3))
    return out


@pytest.mark.parametrize("mode", ["open", "sealed"])
def test_many_hands_in_a_row_over_http(client: FlaskClient, sealed: FlaskClient, mode: str) -> None:
    """§6.5: the game plays hand after hand over HTTP (next_deal without deck: the seeded shuffle),
    with every response checked against openapi.yaml; the accounts balance in every envelope."""
    http = client if mode == "open" else sealed
    rng = random.Random(mode)
    r = http.post("/v1/games/bragging/new", json={"players": 5, "seed": 42, "options": {"hands": 12, "ante": 2}})
    assert r.status_code == 201
    env = r.json
    headers = {"X-Seat-Key": env["table_key"]} if mode == "sealed" else {}
    hands = 0
    for _ in range(2000):
        if env["status"] == "finished":
            break
        scores = env["scores"]
        assert sum(scores["totals"]) + scores["pot"] + scores["carry"] == 0
        if mode == "open":
            legal, source = env["legal_moves"], {"state": env["state"]}
        else:
            seat = env["to_move"][0]
            view = http.post(f"/v1/games/bragging/state?as={seat}", json={"token": env["token"]}, headers=headers).json
            legal, source = view["legal_moves"], {"token": env["token"]}
            assert view["state"]["seat"] == seat and "hidden" not in view["state"]
        move = _concrete(rng.choice(legal), rng)
        r = http.post("/v1/games/bragging/moves", json={**source, "move": move}, headers=headers)
        assert r.status_code == 200, r.json
        hands += any(e["type"] == "hand_over" for e in r.json["events"])
        env = r.json
    assert env["status"] == "finished" and hands == 12
    assert env["winner"] == sorted(s for s, b in enumerate(env["scores"]["totals"]) if b == max(env["scores"]["totals"]))


# --- openapi.yaml agrees with the engine ------------------------------------------------------


def test_openapi_moves_and_options_are_the_engines() -> None:
    """openapi.yaml: BraggingMove is a union on ``type`` over exactly MOVE_TYPES with the engine's
    fields (templates' ``min_*`` included); BraggingOptions has OPTION_INFO's names, defaults and bounds."""
    import dataclasses

    from tests.contract import SPEC as OPENAPI

    schemas = OPENAPI["components"]["schemas"]
    move = schemas["BraggingMove"]
    mapping = move["discriminator"]["mapping"]
    assert list(mapping) == list(B.MOVE_TYPES)
    for kind, ref in mapping.items():
        branch = schemas[ref.rsplit("/", 1)[-1]]
        fields = [f for f in dataclasses.fields(B.MOVE_CLASSES[kind]) if f.metadata.get("wire", True)]
        assert set(branch["properties"]) == {"type", "at"} | {f.name for f in fields}, kind
        required = {f.name for f in fields if f.default is dataclasses.MISSING}
        assert set(branch["required"]) == {"type"} | required, kind
    options = schemas["BraggingOptions"]["properties"]
    defaults = {f.name: f.default for f in dataclasses.fields(Options)}
    assert set(options) == set(defaults) == set(B.OPTION_INFO)
    for name, prop in options.items():
        info = B.OPTION_INFO[name]
        assert prop["default"] == defaults[name] and prop["description"] == info["description"], name
        for bound in ("minimum", "maximum"):
            assert prop.get(bound) == info.get(bound), (name, bound)
        if "enum" in info:
            assert prop["enum"] == info["enum"], name
    assert options["pack"]["enum"] == sorted(B.PACKS)
    codes = set(schemas["BraggingProblemCode"]["enum"]) | set(schemas["RulesProblemCode"]["enum"])
    assert SPEC_CODES <= codes
