"""Schnapsen engine: one rule per test, each citing ``docs/rules/schnapsen.md``.

Positions come from real decks (the spec's §10 decks where possible) plus moves, or are built
directly as ``State`` values with ``position`` (every one passes ``check_state`` unless a test says
otherwise).
"""

from __future__ import annotations

import copy
import dataclasses
import json
from collections.abc import Callable, Sequence
from typing import Any

import pytest

from service.cards import Card, Suit
from service.cards.packs import short_20
from service.engines import schnapsen as S
from service.engines.base import BadMove, BadSetup, IllegalMove, InvalidState, is_listed
from service.engines.moves import NextDeal
from service.engines.schnapsen import (
    Claim,
    Close,
    Closing,
    Exchange,
    LastTrick,
    Marriage,
    Meld,
    Options,
    Phase,
    Play,
    Reason,
    Result,
    Reveal,
    State,
)
from service.schemas.common import to_wire
from tests.codes import section_8

PACK = short_20()


# --- helpers ----------------------------------------------------------------------------------


def c(text: str) -> Card:
    return Card.parse(text)


def cs(text: str) -> tuple[Card, ...]:
    return tuple(Card.parse(t) for t in text.split())


def new(deck: Sequence[Card], **options: Any) -> State:
    return S.new_game(Options(**options), 2, tuple(deck))


def run(state: State, *moves: Any) -> State:
    for move in moves:
        state = S.apply(state, move)
    return state


def refuse(state: State, move: Any, code: str) -> None:
    """``move`` is refused with ``code``, is not listed, and the state is left as it was."""
    before = copy.deepcopy(state)
    with pytest.raises(IllegalMove) as info:
        S.apply(state, move)
    assert info.value.code == code, info.value.detail
    assert state == before
    if code != "invalid_deck":  # see test_next_deal_with_a_bad_deck_is_not_listed
        assert not is_listed(move, S.legal_moves(state))


def legal(state: State) -> set[Any]:
    return set(S.legal_moves(state))


def plays(player: int, cards: str) -> set[Play]:
    return {Play(player, x) for x in cs(cards)}


def deck_for(s0: str, s1: str, trump: str, talon: str = "", dealer: int = 0) -> tuple[Card, ...]:
    """A deck dealing these hands (in received order) and trump card; the talon starts with ``talon``."""
    hands = (cs(s0), cs(s1))
    eldest, dealt = hands[1 - dealer], hands[dealer]
    head = cs(talon)
    used = set(hands[0] + hands[1] + (c(trump),) + head)
    rest = tuple(x for x in PACK if x not in used)
    deck = eldest[:3] + dealt[:3] + (c(trump),) + eldest[3:] + dealt[3:] + head + rest
    assert len(deck) == 20 and len(set(deck)) == 20
    return deck


def deal(s0: str, s1: str, trump: str, talon: str = "", **options: Any) -> State:
    return new(deck_for(s0, s1, trump, talon, options.get("dealer", 0)), **options)


def position(
    s0: str,
    s1: str,
    trump_suit: str,
    *,
    leader: int,
    trick: str = "",
    talon: str = "",
    trump_card: str | None = None,
    closed_by: int | None = None,
    closing: Closing | None = None,
    tricks: tuple[Sequence[str] | None, Sequence[str] | None] = (None, None),
    marriages: tuple[tuple[Meld, ...], tuple[Meld, ...]] = ((), ()),
    options: Options | None = None,
    check: bool = True,
) -> State:
    """A deal in progress built directly (§5.1). ``s0``/``s1`` are the hands *after* the lead in ``trick``.

    ``tricks``: each seat's tricks as "LED FOLLOWED" strings; a ``None`` side gets the cards left over
    (both ``None``: the left-over cards are shared out alternately).
    """
    hands = (cs(s0), cs(s1))
    led = cs(trick)
    face_down = cs(talon)
    trump = c(trump_card) if trump_card else None
    given = [tuple(tuple(cs(t)) for t in side) if side is not None else None for side in tricks]
    used = set(hands[0] + hands[1] + led + face_down + ((trump,) if trump else ()))
    for side in given:
        for pair in side or ():
            used.update(pair)
    rest = [x for x in PACK if x not in used]
    assert len(rest) % 2 == 0, "left-over cards must pair up into tricks"
    pairs = [(rest[i], rest[i + 1]) for i in range(0, len(rest), 2)]
    if given[0] is None and given[1] is None:
        given = [tuple(pairs[0::2]), tuple(pairs[1::2])]
    elif given[0] is None:
        given[0] = tuple(pairs)
    elif given[1] is None:
        given[1] = tuple(pairs)
    else:
        assert not pairs, f"cards unaccounted for: {rest}"
    if closed_by is not None and closing is None:
        closing = Closing(0, 0)
    state = State(
        options=options or Options(),
        phase=Phase.PLAY,
        deal_number=1,
        dealer=0,
        game_points=(0, 0),
        hands=hands,
        talon=face_down,
        trump_card=trump,
        trump_suit=Suit(trump_suit),
        closed_by=closed_by,
        closing=closing,
        leader=leader,
        to_move=1 - leader if led else leader,
        trick=led,
        marriage_pending=None,
        tricks=(given[0], given[1]),  # type: ignore[arg-type]
        marriages=marriages,
        revealed=(),
        last_trick=None,
        result=None,
        results=(),
    )
    if check:
        S.check_state(state)
    return state


def wire_cards(obj: Any) -> set[str]:
    """Every card string that occurs anywhere in the wire form of ``obj``."""
    names = {str(x) for x in PACK}
    found: set[str] = set()

    def walk(x: Any) -> None:
        if isinstance(x, str):
            if x in names:
                found.add(x)
        elif isinstance(x, dict):
            for v in x.values():
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)

    walk(json.loads(json.dumps(to_wire(obj))))
    return found


# The spec's §10 decks and move sequences.
EX1 = cs("AH 10S KD QC JH AS QH 10H JD KH KS AD JS QS 10C AC KC JC QD 10D")
EX4 = cs("AC 10C KC AH JH 10S JC QC KH AD QD JS QH KS 10H JD AS KD QS 10D")
EX5 = cs("AS JC JH JS QD 10D 10S QS QC AH JD KH 10H KD KS QH 10C AC KC AD")
EX6 = cs("10D KH JS KD AD KC JD AC QD KS AH AS 10H JH JC QH 10C 10S QC QS")
H, SP, D, CL = Suit.H, Suit.S, Suit.D, Suit.C

EX2_STEP2 = [Play(1, c("10S")), Play(0, c("AS"))]
EX2_STEP5 = EX2_STEP2 + [Exchange(0), Marriage(0, H)]
EX3_STEP2 = EX2_STEP5 + [Play(0, c("KH")), Play(1, c("JD"))]
EX5_TRICKS = [
    (1, "QS", 0, "JD"), (1, "QC", 0, "AH"), (1, "KD", 0, "KS"), (0, "QD", 1, "JC"), (0, "AC", 1, "10C"),
    (0, "AD", 1, "AS"), (1, "JH", 0, "QH"), (0, "10D", 1, "10S"), (1, "KH", 0, "10H"), (0, "JS", 1, "KC"),
]
EX6_CLOSED = [Play(1, c("10D")), Play(0, c("AH")), Play(1, c("KH")), Play(0, c("AD")), Close(0)]
EX6_REST = [
    Play(0, c("10H")), Play(1, c("QD")), Play(1, c("JS")), Play(0, c("KS")), Play(0, c("KC")), Play(1, c("AC")),
    Play(1, c("AS")), Play(0, c("KD")), Play(0, c("JH")), Play(1, c("JC")),
]


def ex5(tricks: int, **options: Any) -> State:
    """Example 5 after ``tricks`` tricks."""
    state = new(EX5, **options)
    for lead_p, led, follow_p, followed in EX5_TRICKS[:tricks]:
        state = run(state, Play(lead_p, c(led)), Play(follow_p, c(followed)))
    return state


def ex(moves: Sequence[Any], deck: Sequence[Card] = EX1, **options: Any) -> State:
    return run(new(deck, **options), *moves)


def claimed_ex3(**options: Any) -> State:
    """Example 3 step 3: S0's correct claim for 3 (deal_over with default options)."""
    return ex(EX3_STEP2 + [Claim(0)], **options)


def finished_match() -> State:
    return claimed_ex3(target=3)


# --- §4 setup -----------------------------------------------------------------------------------


def test_deal_order_three_eldest_three_dealer_trump_two_two():
    """§4.2: deck[0..2]+deck[7..8] to the eldest, deck[3..5]+deck[9..10] to the dealer, deck[6] is the trump card, deck[11..] the talon in order."""
    s = new(EX1)
    assert s.hands[1] == cs("AH 10S KD 10H JD")
    assert s.hands[0] == cs("QC JH AS KH KS")
    assert s.trump_card == c("QH") and s.trump_suit is H
    assert s.talon == EX1[11:]
    assert (s.phase, s.deal_number, s.dealer, s.game_points) == (Phase.PLAY, 1, 0, (0, 0))


def test_deal_order_with_dealer_one():
    """§3 option ``dealer`` and §4.2: with dealer 1 seat 0 is the eldest and gets deck[0..2]+deck[7..8]."""
    s = new(EX1, dealer=1)
    assert s.dealer == 1
    assert s.hands[0] == cs("AH 10S KD 10H JD")
    assert s.hands[1] == cs("QC JH AS KH KS")
    assert s.trump_card == c("QH")


@pytest.mark.parametrize("dealer", [0, 1])
def test_eldest_leads_first_trick(dealer: int):
    """§4.3: the eldest (1 - dealer) leads the first trick."""
    s = new(EX1, dealer=dealer)
    assert s.leader == s.to_move == 1 - dealer
    assert S.to_move(s) == frozenset({1 - dealer})


def test_talon_size_counts_the_trump_card():
    """§4.2: talon size = face-down cards + 1 while the trump card lies under the talon: 10, then 10 - 2k."""
    s = new(EX1)
    assert len(s.talon) == 9 and S.talon_size(s) == 10 and S.derived(s)["talon_size"] == 10
    assert [S.talon_size(ex5(k)) for k in range(6)] == [10, 8, 6, 4, 2, 0]


def test_trick_winner_leads_next_trick():
    """§4.3: after each trick its winner leads the next one."""
    s = ex5(3)  # S0 won trick 3 with a trump
    assert s.last_trick == LastTrick(cs("KD KS"), 1, 0)  # type: ignore[arg-type]
    assert s.leader == s.to_move == 0 and s.trick == ()


def test_new_game_refuses_a_deck_that_is_not_the_pack():
    """§4.1: a deck that is not exactly the 20-card pack is rejected with invalid_deck."""
    for deck in (EX1[:-1], EX1[:-1] + (EX1[0],), EX1 + (c("9H"),)):
        with pytest.raises(BadSetup) as info:
            new(deck)
        assert info.value.code == "invalid_deck"


def test_new_game_needs_exactly_two_players():
    """§2, §4.1: players other than 2 are refused with invalid_players."""
    for players in (1, 3, 4):
        with pytest.raises(BadSetup) as info:
            S.new_game(Options(), players, EX1)
        assert info.value.code == "invalid_players"


# --- §6.6 following -------------------------------------------------------------------------------


def test_relaxed_play_allows_any_card_while_talon_open():
    """§6.6: while the talon is open and not exhausted the follower may play any card (no duty to follow)."""
    s = ex([Play(1, c("10S"))])
    assert legal(s) == plays(0, "QC JH AS KH KS")
    after = S.apply(s, Play(0, c("QC")))  # renounces although holding AS and KS
    assert after.last_trick.winner == 1  # type: ignore[union-attr]


def test_closing_makes_following_strict():
    """§6.4, §6.6: from the follow turn after closing, the follower must head the trick (same opening, relaxed before)."""
    s = ex([Close(1), Play(1, c("10S"))])
    assert legal(s) == plays(0, "AS")
    refuse(s, Play(0, c("KS")), "must_head_trick")
    refuse(s, Play(0, c("QC")), "must_follow_suit")


def test_strict_must_follow_suit():
    """§6.6 strict rule 1: holding the led suit, the follower must play that suit (must_follow_suit)."""
    s = ex([Close(1), Play(1, c("KH"))], deck=EX4)
    refuse(s, Play(0, c("10S")), "must_follow_suit")
    refuse(s, Play(0, c("QD")), "must_follow_suit")


def test_strict_must_head_the_trick():
    """§6.6 strict rule 1: with a higher card of the led suit the follower must play a higher one (must_head_trick)."""
    s = ex([Close(1), Play(1, c("KH"))], deck=EX4)
    assert legal(s) == plays(0, "AH")
    refuse(s, Play(0, c("JH")), "must_head_trick")


def test_strict_any_card_of_the_suit_when_unable_to_head():
    """§6.6 strict rule 1: without a higher card of the led suit, any card of that suit."""
    s = position("JS QS", "KH QH 10C", "S", leader=0, trick="AH")
    assert legal(s) == plays(1, "KH QH")
    refuse(s, Play(1, c("10C")), "must_follow_suit")


def test_strict_must_trump_when_void_in_led_suit():
    """§6.6 strict rule 2: void in the led non-trump suit, the follower must play a trump (must_trump)."""
    s = ex5(5)
    s = S.apply(s, Play(0, c("AD")))
    assert legal(s) == plays(1, "AS 10S")
    refuse(s, Play(1, c("KH")), "must_trump")
    refuse(s, Play(1, c("KC")), "must_trump")


def test_strict_trump_led_must_head_with_a_higher_trump():
    """§6.6: when a trump is led, rule 1 applies: a higher trump if possible."""
    s = position("JH QH", "AS JS KH", "S", leader=0, trick="QS")
    assert legal(s) == plays(1, "AS")
    refuse(s, Play(1, c("JS")), "must_head_trick")
    refuse(s, Play(1, c("KH")), "must_follow_suit")


def test_strict_trump_led_lower_trump_when_unable_to_head():
    """§6.6: trump led, no higher trump: a lower trump."""
    s = position("JH QH", "JS KH AD", "S", leader=0, trick="AS")
    assert legal(s) == plays(1, "JS")
    refuse(s, Play(1, c("AD")), "must_follow_suit")


def test_strict_void_of_led_suit_and_trumps_any_card():
    """§6.6 strict rule 3: void in the led suit and in trumps, any card."""
    s = position("JH QH", "JC KD AD", "S", leader=0, trick="AH")
    assert legal(s) == plays(1, "JC KD AD")


def test_strict_trump_led_void_of_trumps_any_card():
    """§6.6: a trump led to a follower without trumps: any card (rule 2 is only for a non-trump lead)."""
    s = position("JH QH", "JC KD AD", "S", leader=0, trick="AS")
    assert legal(s) == plays(1, "JC KD AD")


def test_strict_play_once_talon_exhausted():
    """§6.6: strict play also applies when the talon size is 0 without closing."""
    s = ex5(5)
    assert S.talon_size(s) == 0 and s.closed_by is None
    s = run(s, Play(0, c("AD")), Play(1, c("AS")), Play(1, c("JH")))
    assert legal(s) == plays(0, "10H QH")
    refuse(s, Play(0, c("JS")), "must_follow_suit")


def test_leader_is_free_in_strict_play():
    """§6.6: the following duties bind only the follower; the leader may lead any card."""
    s = ex5(5)
    assert {m for m in legal(s) if isinstance(m, Play)} == plays(0, "JS 10D 10H QH AD")


# --- §6.6 trick resolution and drawing ---------------------------------------------------------------


def _last_trick_winner(led: str, followed: str, trump: str) -> int:
    s = position("", followed, trump, leader=0, trick=led)
    return S.apply(s, Play(1, c(followed))).last_trick.winner  # type: ignore[union-attr]


@pytest.mark.parametrize("low, high", [("JH", "QH"), ("QH", "KH"), ("KH", "10H"), ("10H", "AH")])
def test_rank_order_a_10_k_q_j(low: str, high: str):
    """§2, §6.6: in the same suit the higher rank wins; order A > 10 > K > Q > J."""
    assert _last_trick_winner(low, high, "S") == 1
    assert _last_trick_winner(high, low, "S") == 0


def test_trump_beats_a_plain_card():
    """§6.6: of different suits, the follower wins if his card is a trump."""
    assert _last_trick_winner("AH", "JS", "S") == 1


def test_different_suit_non_trump_loses():
    """§6.6: of different suits, a non-trump follower loses, however high."""
    assert _last_trick_winner("JH", "AD", "S") == 0


def test_led_trump_beats_a_plain_card():
    """§6.6: a led trump wins against any plain card (Example 6 trick 1: 10D beats AH)."""
    assert _last_trick_winner("10D", "AH", "D") == 0


def test_trick_goes_to_the_winners_tricks():
    """§6.6: the winner appends [led, followed] to his tricks; last_trick is set; trick is emptied."""
    s = ex(EX2_STEP2)
    assert s.tricks == (((c("10S"), c("AS")),), ())
    assert s.last_trick == LastTrick((c("10S"), c("AS")), 1, 0)
    assert s.trick == ()


def test_winner_draws_first_then_loser():
    """§6.6 drawing: the winner takes talon[0], then the loser the next card."""
    s = ex(EX2_STEP2)  # S0 won
    assert s.hands[0][-1] == c("AD") and s.hands[1][-1] == c("JS")
    s = ex5(1)  # S1 won
    assert s.hands[1][-1] == c("KH") and s.hands[0][-1] == c("10H")


def test_loser_draws_the_revealed_trump_card_last():
    """§6.6 drawing: after trick 5 the winner takes the last face-down card, the loser the trump card (recorded in revealed)."""
    s = ex5(5)  # S0 won trick 5
    assert s.hands[0][-1] == c("AD") and s.hands[1][-1] == c("10S")
    assert s.trump_card is None and s.talon == ()
    assert s.revealed == (Reveal(1, c("10S")),)


def test_draw_events_hide_face_down_cards_only():
    """§5.2, wire.md events: a face-down draw is private to the taker; the drawn trump card is public."""
    s, events = S.step(ex5(4), Play(0, c("AC")))
    s, events = S.step(s, Play(1, c("10C")))
    kinds = [e["type"] for e in events]
    assert kinds == ["card_played", "trick_won", "card_drawn", "card_drawn"]
    first, second = events[2], events[3]
    assert (first["player"], first["card"], first.get("private_to")) == (0, c("AD"), 0)
    assert (second["player"], second["card"], second.get("trump_card")) == (1, c("10S"), True)
    assert "private_to" not in second


# --- §6.3 exchange ------------------------------------------------------------------------------


def test_exchange_swaps_the_trump_jack_for_the_trump_card():
    """§6.3: the Jack becomes the trump card, the old trump card is appended to the hand and revealed; the lead turn continues."""
    before = ex(EX2_STEP2)
    s = S.apply(before, Exchange(0))
    assert s.hands[0] == cs("QC KH KS AD QH")
    assert s.trump_card == c("JH") and s.trump_suit is H
    assert s.talon == before.talon and S.talon_size(s) == 8
    assert s.revealed == (Reveal(0, c("QH")),)
    assert s.to_move == 0 and s.trick == ()


def test_exchange_needs_the_trump_jack():
    """§6.1, §8: exchange without holding the trump Jack is refused with no_trump_jack."""
    refuse(new(EX1), Exchange(1), "no_trump_jack")


def test_no_exchange_when_the_trump_card_is_the_jack():
    """§6.3: if the trump card itself is the Jack, nobody can exchange (no_trump_jack)."""
    s = new(EX4)  # trump card JC
    assert not any(isinstance(m, Exchange) for m in S.legal_moves(s))
    refuse(s, Exchange(1), "no_trump_jack")


def test_exchange_needs_talon_size_three():
    """§3 exchange_with_two_left=false, §6.1: exchange needs talon size >= 3 (talon_too_small at 2)."""
    s = ex5(3)
    assert S.talon_size(s) == 4 and Exchange(0) in legal(s)
    s = ex5(4)
    assert S.talon_size(s) == 2 and c("JS") in s.hands[0]
    refuse(s, Exchange(0), "talon_too_small")


def test_exchange_with_two_left_option_allows_size_two():
    """§3 exchange_with_two_left=true: the exchange is also allowed at talon size 2."""
    s = ex5(4, exchange_with_two_left=True)
    assert Exchange(0) in legal(s)
    s = S.apply(s, Exchange(0))
    assert s.trump_card == c("JS") and c("10S") in s.hands[0]
    refuse(s, Close(0), "talon_too_small")  # the option does not touch closing


def test_no_exchange_after_closing():
    """§6.1, §8: the talon closed, exchange is refused with talon_closed."""
    s = ex(EX2_STEP2 + [Close(0)])
    assert c("JH") in s.hands[0]
    refuse(s, Exchange(0), "talon_closed")


def test_no_exchange_when_talon_exhausted():
    """§6.1, §8: exchange at talon size 0 is refused with talon_exhausted."""
    s = position("JS AH", "QH KD", "S", leader=0)
    refuse(s, Exchange(0), "talon_exhausted")


def test_only_the_leader_may_exchange():
    """§6.1, §8: a follower's exchange is refused with not_leader."""
    s = ex([Play(1, c("10S"))])
    assert c("JH") in s.hands[0]
    refuse(s, Exchange(0), "not_leader")


def test_close_still_allowed_after_exchange():
    """§6.1: exchange and close may both be made in one lead turn, exchange first."""
    s = ex(EX2_STEP2 + [Exchange(0)])
    assert Close(0) in legal(s)
    s = S.apply(s, Close(0))
    assert s.closed_by == 0 and s.trump_card == c("JH")


# --- §6.4 close ---------------------------------------------------------------------------------


def test_close_records_the_opponents_snapshot():
    """§6.4: closed_by = p; closing = the non-closer's tricks won and counted points at that moment."""
    s = run(new(EX6), *EX6_CLOSED)
    assert s.closed_by == 0 and s.closing == Closing(1, 21)
    assert s.to_move == 0 and s.trick == ()


def test_close_snapshot_counts_the_opponents_marriage():
    """§6.4, §7.1: the snapshot's opp_points are counted points, marriages included once he has a trick."""
    s = position(
        "KH QH JD QD KD", "AH 10H JS QS KS", "H", leader=0, talon="AD 10D JC QC KC", trump_card="JH",
        tricks=(None, ["AS 10S"]), marriages=((), (Meld(SP, 20),)),
    )
    s = S.apply(s, Close(0))
    assert s.closing == Closing(1, 41)


def test_close_needs_talon_size_three():
    """§3, §6.1: closing is refused at talon size <= 2 (talon_too_small), allowed at 4."""
    assert Close(0) in legal(ex5(3))
    refuse(ex5(4), Close(0), "talon_too_small")


def test_close_refused_when_talon_exhausted():
    """§6.1, §8: close at talon size 0 is refused with talon_exhausted."""
    refuse(position("JS AH", "QH KD", "S", leader=0), Close(0), "talon_exhausted")


def test_close_only_once():
    """§8: a second close is refused with talon_closed."""
    refuse(ex([Close(1)], deck=EX4), Close(1), "talon_closed")


def test_only_the_leader_may_close():
    """§6.1, §8: a follower's close is refused with not_leader."""
    refuse(ex([Play(1, c("10S"))]), Close(0), "not_leader")


def test_no_drawing_after_closing():
    """§6.4: after closing no card is drawn; talon and trump card stay out of play."""
    closed = run(new(EX6), *EX6_CLOSED)
    s = run(closed, *EX6_REST[:2])
    assert s.talon == closed.talon and s.trump_card == c("JD") and S.talon_size(s) == 6
    assert len(s.hands[0]) == len(s.hands[1]) == 4


# --- §6.5 marriage ------------------------------------------------------------------------------


def test_trump_marriage_is_worth_40():
    """§2, §6.5: a marriage in trumps records 40 at once."""
    s = ex(EX2_STEP5)
    assert s.marriages == ((Meld(H, 40),), ())
    assert s.marriage_pending is H
    assert S.points(s, 0) == 61


def test_plain_marriage_is_worth_20():
    """§2, §6.5: a marriage in a plain suit records 20."""
    s = ex(EX3_STEP2 + [Marriage(0, SP)])
    assert s.marriages[0] == (Meld(H, 40), Meld(SP, 20))
    assert S.points(s, 0) == 87


def test_after_a_marriage_lead_its_king_or_queen():
    """§6.5: after declaring, the only legal moves are claim and leading K or Q of that suit (must_play_marriage_card)."""
    s = ex(EX2_STEP5)
    assert legal(s) == {Claim(0)} | plays(0, "KH QH")
    refuse(s, Play(0, c("QC")), "must_play_marriage_card")
    refuse(s, Play(0, c("AD")), "must_play_marriage_card")


@pytest.mark.parametrize("lead, partner", [("KS", "QS"), ("QS", "KS")])
def test_marriage_partner_card_is_revealed(lead: str, partner: str):
    """§6.5, §6.6: leading one card of the declared pair reveals the other, which stays in the hand."""
    s = ex(EX3_STEP2 + [Marriage(0, SP), Play(0, c(lead))])
    assert s.revealed[-1] == Reveal(0, c(partner))
    assert c(partner) in s.hands[0] and s.marriage_pending is None
    assert c(partner) in S.view(s, 1)["known_opponent_cards"]  # type: ignore[operator]


def test_marriage_pending_blocks_exchange_close_and_another_marriage():
    """§6.1, §8: after a marriage, exchange, close and marriage are refused with marriage_pending."""
    s = deal("KS QS KH QH JD", "AH 10H JS AS 10S", "AD", dealer=1)
    assert {Exchange(0), Close(0), Marriage(0, SP), Marriage(0, H)} <= legal(s)
    s = S.apply(s, Marriage(0, SP))
    refuse(s, Exchange(0), "marriage_pending")
    refuse(s, Close(0), "marriage_pending")
    refuse(s, Marriage(0, H), "marriage_pending")
    refuse(s, Marriage(0, SP), "marriage_pending")


def test_marriage_counts_only_once_the_declarer_has_a_trick():
    """§7.1, §9.1 decision 5: a marriage declared before one's first trick is recorded but counts only after a trick."""
    s = ex([Close(1), Marriage(1, CL)], deck=EX4)
    assert s.marriages[1] == (Meld(CL, 40),)
    assert S.points(s, 1) == 0 and S.derived(s)["marriage_points"] == [0, 40]
    s = run(s, Play(1, c("KC")), Play(0, c("QD")))
    assert S.points(s, 1) == 7 + 40


def test_marriage_never_counts_without_a_trick():
    """§7.1: if the declarer never wins a trick, his marriage never counts (it stays recorded)."""
    s = deal("AS KD QD JD 10H", "10S JS AC 10C AD", "AH", dealer=1)  # S0 leads, trump H
    s = run(s, Marriage(0, D), Play(0, c("QD")), Play(1, c("AD")))  # S1 takes QD with AD
    assert s.tricks[0] == () and s.marriages[0] == (Meld(D, 20),)
    assert S.points(s, 0) == 0


def test_marriage_requires_trick_option():
    """§3 marriage_requires_trick=true: no marriage before winning a trick in this deal (marriage_requires_trick); allowed after."""
    assert Marriage(1, CL) in legal(new(EX4))
    s = new(EX4, marriage_requires_trick=True)
    assert Marriage(1, CL) not in legal(s)
    refuse(s, Marriage(1, CL), "marriage_requires_trick")
    s = ex(EX2_STEP2 + [Exchange(0)], marriage_requires_trick=True)  # S0 has won a trick
    assert Marriage(0, H) in legal(s)
    assert S.apply(s, Marriage(0, H)).marriages[0] == (Meld(H, 40),)


def test_marriage_allowed_after_closing():
    """§6.1, §9.1 decision 16: marriages are allowed after the talon was closed."""
    s = ex([Close(1)], deck=EX4)
    assert Marriage(1, CL) in legal(s)
    assert S.apply(s, Marriage(1, CL)).marriage_pending is CL


def test_marriage_allowed_after_talon_exhausted():
    """§6.1: marriages are allowed in every stage of the deal, also at talon size 0."""
    s = position("KS QS AH", "JS JH AD", "H", leader=0)
    assert Marriage(0, SP) in legal(s)
    assert S.apply(s, Marriage(0, SP)).marriages[0][-1] == Meld(SP, 20)


def test_marriage_needs_king_and_queen():
    """§6.1, §8: declaring without K and Q of the suit is refused with no_marriage."""
    s = new(EX1)
    refuse(s, Marriage(1, H), "no_marriage")
    refuse(s, Marriage(1, D), "no_marriage")


def test_only_the_leader_may_declare():
    """§6.1, §8: a follower's marriage is refused with not_leader."""
    s = ex([Play(1, c("10S"))])
    assert c("KS") in s.hands[0]
    refuse(s, Marriage(0, SP), "not_leader")


def test_leading_a_marriage_card_without_declaring_scores_nothing():
    """§9.1 decision 3: leading K or Q without the marriage move records no marriage."""
    s = ex(EX2_STEP2 + [Exchange(0), Play(0, c("KH"))])
    assert s.marriages == ((), ()) and s.revealed == (Reveal(0, c("QH")),)


# --- §6.2, §7.3 claims ----------------------------------------------------------------------------


def test_claim_allowed_at_any_point_of_the_lead_turn():
    """§6.1: claim is legal before the first trick, after exchange, after close and after a marriage."""
    assert Claim(1) in legal(new(EX1))
    assert Claim(0) in legal(ex(EX2_STEP2 + [Exchange(0)]))
    assert Claim(0) in legal(ex(EX2_STEP2 + [Exchange(0), Close(0)]))
    assert Claim(0) in legal(ex(EX2_STEP5))


def test_only_the_leader_may_claim():
    """§6.1, §8: a follower's claim is refused with not_leader."""
    refuse(ex([Play(1, c("10S"))]), Claim(0), "not_leader")


def test_correct_claim_wins_the_deal():
    """§7.3: a correct claim (>= 66) ends the deal; value from the opponent's current tricks/points (3: no trick)."""
    s = claimed_ex3()
    assert s.result == Result(0, 3, Reason.CLAIM, (67, 0))
    assert s.phase is Phase.DEAL_OVER and s.game_points == (3, 0)


@pytest.mark.parametrize(
    "opp_tricks, want",
    [
        ([], 3),
        (["QS QH"], 2),
        (["AS 10S", "KH QD", "JD JC"], 2),  # 32 points
        (["AS 10S", "KH QD", "JD QC"], 1),  # exactly 33
        (["AS 10S", "AH QD"], 1),  # 35
    ],
    ids=["no_trick", "6_points", "32_points", "33_points", "35_points"],
)
def test_value_table(opp_tricks: list[str], want: int):
    """§7.2: value = 3 if the opponent has no trick, else 2 if his points < 33, else 1."""
    s = position("JS", "JH", "D", leader=0, tricks=(None, opp_tricks))
    assert S.points(s, 0) >= 66
    assert S.apply(s, Claim(0)).result.game_points == want  # type: ignore[union-attr]


def test_claim_before_the_first_trick_is_false():
    """§9.1 decision 8: a claim by the first leader before any trick is legal but false."""
    s = S.apply(new(EX1), Claim(1))
    assert s.result == Result(0, 3, Reason.FALSE_CLAIM, (0, 0))


def test_false_claim_gives_the_opponent_three_if_he_has_no_trick():
    """§7.2 penalty(0) = 3, §7.3: a false claim scores 3 for an opponent without a trick (Example 2 step 6)."""
    s = S.apply(ex(EX2_STEP5), Claim(0))
    assert s.result == Result(1, 3, Reason.FALSE_CLAIM, (61, 0))
    assert s.game_points == (0, 3)


def test_false_claim_gives_the_opponent_two_if_he_has_a_trick():
    """§7.2 penalty(t>0) = 2, §7.3: a false claim scores 2 for an opponent who has a trick."""
    s = ex5(3)
    assert len(s.tricks[1]) == 2
    assert S.apply(s, Claim(0)).result == Result(1, 2, Reason.FALSE_CLAIM, (8, 19))


def test_false_claim_after_marriage_without_trick():
    """§9.1 decision 5: declaring while trickless and claiming is a false claim."""
    s = ex([Marriage(1, CL), Claim(1)], deck=EX4)
    assert s.result == Result(0, 3, Reason.FALSE_CLAIM, (0, 0))


def test_closer_correct_claim_is_valued_at_closing():
    """§7.3, §9.1 decision 11: the closer's correct claim is valued from the opponent's tricks/points at closing (Example 4)."""
    s = ex(
        [Close(1), Marriage(1, CL), Play(1, c("KC")), Play(0, c("QD")), Play(1, c("KH")), Play(0, c("AH")),
         Play(0, c("AD")), Play(1, c("10C")), Claim(1)],
        deck=EX4,
    )
    assert s.result == Result(1, 3, Reason.CLAIM, (15, 68))


def test_closers_false_claim_uses_the_snapshot():
    """§7.3 "false claim by the closer": the opponent scores penalty(closing.opp_tricks), not penalty of his current tricks."""
    s = ex([Close(1), Play(1, c("KH")), Play(0, c("AH")), Play(0, c("AD")), Play(1, c("QC"))], deck=EX4)
    assert s.closing == Closing(0, 0) and len(s.tricks[0]) == 1 and s.to_move == 1
    assert S.apply(s, Claim(1)).result == Result(0, 3, Reason.FALSE_CLAIM, (15, 14))


@pytest.mark.parametrize("snapshot, want", [(Closing(0, 0), 3), (Closing(1, 21), 2)])
def test_non_closers_correct_claim_scores_penalty_of_the_snapshot(snapshot: Closing, want: int):
    """§7.3 "correct claim by the non-closer": he scores penalty(closing.opp_tricks), not the value table (which gives 1 here)."""
    s = position(
        "JS QS", "JH QH", "D", leader=0, talon="KD", trump_card="QD", closed_by=1, closing=snapshot,
        tricks=(["AS 10S", "AH 10H", "AC 10C", "JC KC"], ["AD 10D", "KS KH", "JD QC"]),
    )
    assert S.points(s, 0) == 69 and S.points(s, 1) == 34
    assert S.apply(s, Claim(0)).result == Result(0, want, Reason.CLAIM, (69, 34))


def test_auto_claim_ends_the_deal_after_a_trick():
    """§3 auto_claim, §6.6: the trick winner reaching 66 ends the deal at once as a correct claim."""
    s = ex(EX3_STEP2)
    assert s.phase is Phase.PLAY and S.points(s, 0) == 67  # default: S0 must claim himself
    s, events = S.step(ex(EX3_STEP2[:-1], auto_claim=True), EX3_STEP2[-1])
    assert s.result == Result(0, 3, Reason.CLAIM, (67, 0)) and s.phase is Phase.DEAL_OVER
    assert {"type": "claim", "player": 0, "points": 67, "correct": True, "auto": True} in events


def test_auto_claim_refuses_explicit_claims():
    """§3 auto_claim, §8: an explicit claim is refused with claim_not_allowed and never listed."""
    s = new(EX1, auto_claim=True)
    assert not any(isinstance(m, Claim) for m in S.legal_moves(s))
    refuse(s, Claim(1), "claim_not_allowed")


def test_auto_claim_after_a_marriage():
    """§6.6 note: with auto_claim, a marriage that brings a player who has a trick to 66 ends the deal."""
    kw: dict[str, Any] = {"leader": 0, "talon": "AD 10D JC QC KC", "trump_card": "JH", "tricks": (["AS 10S", "AC 10C"], [])}
    s = position("KH QH JD QD KD", "AH 10H JS QS KS", "H", options=Options(auto_claim=True), **kw)
    s = S.apply(s, Marriage(0, H))
    assert s.result == Result(0, 3, Reason.CLAIM, (82, 0))
    plain = position("KH QH JD QD KD", "AH 10H JS QS KS", "H", **kw)
    assert S.apply(plain, Marriage(0, H)).phase is Phase.PLAY


def test_auto_claim_not_after_a_marriage_without_trick():
    """§6.6 note: the marriage ends the deal only if the declarer already has a trick."""
    s = ex([Marriage(1, CL)], deck=EX4, auto_claim=True)
    assert s.phase is Phase.PLAY and s.marriage_pending is CL


@pytest.mark.parametrize("options", [Options(auto_claim=True), Options(auto_claim=True, marriage_requires_trick=True, dealer=1)])
def test_auto_claim_never_leaves_66_in_play(options: Options):
    """§3 auto_claim, over whole random matches: no deal stays in play with a seat at 66 counted
    points or more, and every deal that ends by a claim ends with its winner at 66 or more (the
    engine counts the trick winner's points only once its tricks could hold 66: no trick is skipped)."""
    from tests.playouts import random_playout

    ends: dict[Reason, int] = {}
    for seed in range(30):
        for before, _, after in random_playout(S, 2, seed, options):
            if after.phase is Phase.PLAY:
                assert max(S.points(after, 0), S.points(after, 1)) < S.WINNING_POINTS, (seed, after)
            elif before.phase is Phase.PLAY:  # this move ended the deal
                result = after.result
                assert result is not None
                ends[result.reason] = ends.get(result.reason, 0) + 1
                if result.reason is Reason.CLAIM:
                    assert result.points[result.winner] >= S.WINNING_POINTS, (seed, after)
    assert ends.get(Reason.CLAIM, 0) > 20 and ends.get(Reason.LAST_TRICK, 0) > 0, ends  # both ways were played


# --- §7.3 end of play ---------------------------------------------------------------------------


def test_unclosed_deal_last_trick_wins():
    """§7.3, §9.1 decision 13: talon never closed, hands empty: the last trick's winner wins (even with fewer points), valued by the table."""
    s = ex5(10)
    assert s.result == Result(0, 1, Reason.LAST_TRICK, (59, 61))
    assert s.phase is Phase.DEAL_OVER and s.game_points == (1, 0)


@pytest.mark.parametrize(
    "loser_tricks, want", [([], 3), (["QS QH"], 2), (["AS 10S", "AH QD"], 1)], ids=["no_trick", "under_33", "33_plus"]
)
def test_last_trick_value_from_the_loser(loser_tricks: list[str], want: int):
    """§7.3: end of play unclosed: value(tricks_won[L], points[L]) of the loser L."""
    s = position("", "JH", "D", leader=0, trick="JS", tricks=(None, loser_tricks))
    s = S.apply(s, Play(1, c("JH")))
    assert s.result.reason is Reason.LAST_TRICK and s.result.winner == 0  # type: ignore[union-attr]
    assert s.result.game_points == want  # type: ignore[union-attr]


def test_closer_winning_last_trick_with_66_is_deemed_to_claim():
    """§7.3, §9.1 decision 9: closed deal, the closer wins the last trick with >= 66: a claim valued at closing."""
    s = position(
        "", "JS", "D", leader=0, trick="AS", talon="KD", trump_card="QD", closed_by=0, closing=Closing(1, 14),
        tricks=(["AH 10H", "AC 10C", "AD 10D"], ["KS 10S", "KH QH", "JH JD", "JC QC", "KC QS"]),
    )
    s = S.apply(s, Play(1, c("JS")))
    assert s.result == Result(0, 2, Reason.CLAIM, (76, 37))


def test_closer_losing_last_trick_fails_even_with_66():
    """§7.3: closed deal, the closer lost the last trick: closer_failed although he has >= 66; penalty(closing.opp_tricks)."""
    s = position(
        "JS", "", "D", leader=1, trick="AS", talon="KD", trump_card="QD", closed_by=0, closing=Closing(0, 0),
        tricks=(["AH 10H", "AC 10C", "AD 10D", "KS 10S"], ["KH QH", "JH JD", "JC QC", "KC QS"]),
    )
    assert S.points(s, 0) >= 66
    s = S.apply(s, Play(0, c("JS")))
    assert s.result == Result(1, 3, Reason.CLOSER_FAILED, (77, 36))


def test_closer_below_66_fails():
    """§7.3 (Example 6): closed deal ended with the closer under 66: the opponent scores penalty(closing.opp_tricks) = 2."""
    s = run(new(EX6), *EX6_CLOSED, *EX6_REST)
    assert s.result == Result(1, 2, Reason.CLOSER_FAILED, (40, 49))
    assert s.game_points == (0, 2)


# --- §6.7, §7.4 match ---------------------------------------------------------------------------


def test_target_option_ends_the_match():
    """§3 target, §7.4: reaching target game points ends the match (game_over, to_move null, winner)."""
    assert claimed_ex3(target=4).phase is Phase.DEAL_OVER
    s = claimed_ex3(target=3)
    assert s.phase is Phase.GAME_OVER and s.to_move is None
    assert S.outcome(s).winners == frozenset({0})  # type: ignore[union-attr]
    assert S.status(s) == "finished" and S.legal_moves(s) == []


def test_match_to_seven_with_alternating_dealer():
    """§3 target default 7, §4.4, §7.4: dealers alternate; game points accumulate until one seat has 7."""
    s = new(EX1)
    dealers, totals = [], []
    while s.phase is not Phase.GAME_OVER:
        dealers.append(s.dealer)
        s = S.apply(s, Claim(s.leader))  # a false claim before the first trick: the opponent scores 3
        totals.append(s.game_points)
        if s.phase is Phase.DEAL_OVER:
            assert s.to_move == 1 - s.dealer
            s = S.apply(s, NextDeal(s.to_move, EX1))  # type: ignore[arg-type]
    assert dealers == [0, 1, 0, 1, 0]
    assert totals == [(3, 0), (3, 3), (6, 3), (6, 6), (9, 6)]
    assert [r.winner for r in s.results] == [0, 1, 0, 1, 0] and s.result == s.results[-1]
    assert S.outcome(s).winners == frozenset({0})  # type: ignore[union-attr]


def test_deal_over_waits_for_the_next_dealer():
    """§7.4, §6.8: in deal_over to_move = 1 - dealer and the only legal move is the next_deal template."""
    s = claimed_ex3()
    assert s.to_move == 1 and S.legal_moves(s) == [NextDeal(1)]
    assert is_listed(NextDeal(1, EX4), S.legal_moves(s))
    s = S.apply(new(EX1, dealer=1), Claim(0))
    assert s.to_move == 0 and S.legal_moves(s) == [NextDeal(0)]


def test_next_deal_deals_with_the_new_dealer():
    """§6.7: next_deal deals §4.2 with dealer = q, leader = 1 - q, deal_number + 1, per-deal fields reset, result null."""
    before = claimed_ex3()
    s = S.apply(before, NextDeal(1, EX4))
    assert (s.phase, s.dealer, s.leader, s.to_move, s.deal_number) == (Phase.PLAY, 1, 0, 0, 2)
    assert s.hands == (cs("AC 10C KC QC KH"), cs("AH JH 10S AD QD"))
    assert s.trump_card == c("JC") and s.trump_suit is CL
    assert s.talon == cs("JS QH KS 10H JD AS KD QS 10D")
    assert (s.tricks, s.marriages, s.revealed, s.trick) == (((), ()), ((), ()), (), ())
    assert (s.closed_by, s.closing, s.marriage_pending, s.last_trick, s.result) == (None, None, None, None, None)
    assert s.game_points == (3, 0) and s.results == before.results


def test_next_deal_refused_with_a_bad_deck():
    """§6.7, §8: a next_deal deck that is not the 20-card pack is refused with invalid_deck."""
    s = claimed_ex3()
    refuse(s, NextDeal(1, EX4[:-1]), "invalid_deck")
    refuse(s, NextDeal(1, EX4[:-1] + (EX4[0],)), "invalid_deck")


def test_next_deal_with_a_bad_deck_is_not_listed():
    """docs/rules/conventions.md "Templates in legal_moves": a next_deal fills the template only with a valid deck (listed ⇔ accepted)."""
    assert not is_listed(NextDeal(1, EX4[:-1]), S.legal_moves(claimed_ex3()))
    assert not is_listed(NextDeal(1, EX4[:-1] + (EX4[0],)), S.legal_moves(claimed_ex3()))
    assert is_listed(NextDeal(1, EX4), S.legal_moves(claimed_ex3()))


def test_next_deal_only_by_the_next_dealer():
    """§6.7, §8: next_deal by the other seat is refused with not_your_turn."""
    refuse(claimed_ex3(), NextDeal(0, EX4), "not_your_turn")


def test_next_deal_refused_during_play():
    """§8 wrong_phase: next_deal during phase play."""
    refuse(new(EX1), NextDeal(1, EX4), "wrong_phase")
    refuse(new(EX1), NextDeal(0, EX4), "wrong_phase")


def test_only_next_deal_in_deal_over():
    """§8 wrong_phase: in deal_over every move other than next_deal is refused with wrong_phase."""
    s = claimed_ex3()
    for move in (Play(1, c("AH")), Claim(1), Exchange(1), Close(1), Marriage(1, D), Claim(0)):
        refuse(s, move, "wrong_phase")


@pytest.mark.parametrize(
    "move",
    [
        NextDeal(1, EX4), NextDeal(0, EX4), NextDeal(1), NextDeal(1, EX4[:5]), Claim(0), Claim(1), Exchange(0),
        Close(1), Marriage(0, SP), Play(1, c("AH")), Play(0, c("9H")),
        BadMove("unknown_move_type", "x", "fly", 0), BadMove("invalid_player", "x", "play", None),
        BadMove("invalid_card", "x", "play", 1), BadMove("invalid_move", "x", None, None),
    ],
    ids=lambda m: f"{type(m).__name__}-{m.code if isinstance(m, BadMove) else m.player}",
)
def test_game_over_refuses_every_move(move: Any):
    """§3, §8: once the match is over every move is refused with game_over (first in the order)."""
    refuse(finished_match(), move, "game_over")


# --- §5.3 views -------------------------------------------------------------------------------


def test_view_hides_the_opponents_hand_and_the_talon():
    """§5.2, §5.3: a seat's view holds its own hand and the opponent's hand count, never his unrevealed cards nor face-down talon cards."""
    s = ex(EX2_STEP2 + [Exchange(0)])
    for seat in (0, 1):
        v = S.view(s, seat)
        assert v["hand"] == s.hands[seat] and v["opponent_hand_count"] == 5
        assert v["talon_count"] == 7 and v["talon_size"] == 8
        hidden = {str(x) for x in s.hands[1 - seat] + s.talon} - {str(r.card) for r in s.revealed if r.player == 1 - seat}
        assert not hidden & wire_cards(v)


def test_view_lists_known_opponent_cards_while_in_hand():
    """§5.3: known_opponent_cards = revealed cards of the opponent still in his hand."""
    s = ex(EX2_STEP2 + [Exchange(0)])
    assert S.view(s, 1)["known_opponent_cards"] == [c("QH")]
    assert S.view(s, 0)["known_opponent_cards"] == []
    s = run(s, Play(0, c("QH")))
    assert S.view(s, 1)["known_opponent_cards"] == []


def test_scores_and_views_count_each_seat_apart():
    """§5.3, §7.1: scores and views are per seat: seat 0's trick (AS on 10S, 21 points) and trump
    marriage (40) are his alone, and mid-trick the leader holds one card fewer than the follower."""
    s = ex(EX2_STEP5)
    assert S.scores(s) == {"totals": [0, 0], "tricks_won": [1, 0], "card_points": [21, 0], "marriage_points": [40, 0],
                           "points": [61, 0]}  # fmt: skip
    s = run(s, Play(0, c("KH")))
    assert [len(h) for h in s.hands] == [4, 5]
    assert S.view(s, 1)["opponent_hand_count"] == 4 and S.view(s, 0)["opponent_hand_count"] == 5
    assert S.view(s, None)["hand_counts"] == [4, 5]


def test_public_view_has_no_hands():
    """§5.2, wire.md: the public view (seat null) shows no hand and no hidden card."""
    s = ex(EX2_STEP2)
    v = S.view(s, None)
    assert v["seat"] is None and "hand" not in v and "legal_moves" not in v
    hidden = {str(x) for x in s.hands[0] + s.hands[1] + s.talon}
    assert not hidden & wire_cards(v)


def test_legal_moves_only_in_the_view_of_the_seat_to_move():
    """§5.3: legal_moves appears only in the view of to_move."""
    s = new(EX1)
    assert S.view(s, 1)["legal_moves"] == S.legal_moves(s)
    assert "legal_moves" not in S.view(s, 0)


def test_show_points_false_hides_tricks_and_points():
    """§3 show_points, §5.3: with show_points false, views omit tricks, card_points and points (scores too)."""
    shown, hidden = ex(EX2_STEP2), ex(EX2_STEP2, show_points=False)
    for seat in (0, 1, None):
        assert {"tricks", "card_points", "points"} <= set(S.view(shown, seat))
        assert not {"tricks", "card_points", "points"} & set(S.view(hidden, seat))
        assert S.view(hidden, seat)["tricks_won"] == [1, 0]
    assert S.scores(shown)["card_points"] == [21, 0]
    assert "card_points" not in S.scores(hidden) and "points" not in S.scores(hidden)


def test_show_points_never_changes_legality_or_scoring():
    """§3 show_points: view only; legal moves and results are the same."""
    for k in range(11):
        a, b = ex5(k), ex5(k, show_points=False)
        assert S.legal_moves(a) == S.legal_moves(b) and a.result == b.result


# --- §8 errors: every code, and their order ------------------------------------------------------

SPEC_CODES = section_8("schnapsen")  # §8's table, in its order (tests/codes.py)

ERROR_CASES: dict[str, Callable[[], tuple[State, Any]]] = {
    "game_over": lambda: (finished_match(), NextDeal(1, EX4)),
    "wrong_phase": lambda: (claimed_ex3(), Play(1, c("AH"))),
    "unknown_move_type": lambda: (new(EX1), BadMove("unknown_move_type", "no such move", "fly", 1)),
    "invalid_move": lambda: (new(EX1), BadMove("invalid_move", "bad suit", "marriage", 1)),
    "invalid_player": lambda: (new(EX1), BadMove("invalid_player", "player 7", "play", None)),
    "invalid_card": lambda: (new(EX1), BadMove("invalid_card", "9H", "play", 1)),
    "not_your_turn": lambda: (new(EX1), Play(0, c("QC"))),
    "invalid_deck": lambda: (claimed_ex3(), NextDeal(1, EX4[1:])),
    "not_leader": lambda: (ex([Play(1, c("10S"))]), Claim(0)),
    "claim_not_allowed": lambda: (new(EX1, auto_claim=True), Claim(1)),
    "marriage_pending": lambda: (ex(EX2_STEP5), Close(0)),
    "talon_closed": lambda: (ex([Close(1)], deck=EX4), Close(1)),
    "talon_exhausted": lambda: (ex5(5), Close(0)),
    "no_trump_jack": lambda: (new(EX1), Exchange(1)),
    "talon_too_small": lambda: (ex5(4), Close(0)),
    "no_marriage": lambda: (new(EX1), Marriage(1, H)),
    "marriage_requires_trick": lambda: (new(EX4, marriage_requires_trick=True), Marriage(1, CL)),
    "card_not_in_hand": lambda: (new(EX1), Play(1, c("QC"))),
    "must_play_marriage_card": lambda: (ex(EX2_STEP5), Play(0, c("QC"))),
    "must_follow_suit": lambda: (ex([Close(1), Play(1, c("KH"))], deck=EX4), Play(0, c("10S"))),
    "must_head_trick": lambda: (ex([Close(1), Play(1, c("KH"))], deck=EX4), Play(0, c("JH"))),
    "must_trump": lambda: (run(ex5(5), Play(0, c("AD"))), Play(1, c("KH"))),
}


def test_every_spec_error_code_has_a_case():
    """§8: the table below provokes each code of the spec's list."""
    assert list(ERROR_CASES) == SPEC_CODES


@pytest.mark.parametrize("code", SPEC_CODES)
def test_error_code(code: str):
    """§8: each refusal reason is reported with its code; the state is unchanged."""
    state, move = ERROR_CASES[code]()
    refuse(state, move, code)


def test_order_game_over_beats_everything():
    """§8: game_over is checked first, before phase, parse and turn problems."""
    s = finished_match()
    for move in (BadMove("unknown_move_type", "x", "fly", 9), NextDeal(0, EX4[:3]), BadMove("invalid_deck", "x", "next_deal", 0)):
        refuse(s, move, "game_over")


def test_order_wrong_phase_before_parse_problems():
    """§8: wrong_phase comes before unknown_move_type, invalid_move, invalid_player, invalid_card."""
    s = claimed_ex3()
    refuse(s, BadMove("unknown_move_type", "x", "fly", 1), "wrong_phase")
    refuse(s, BadMove("invalid_card", "x", "play", 0), "wrong_phase")
    refuse(s, BadMove("invalid_player", "x", "claim", None), "wrong_phase")
    refuse(new(EX1), BadMove("invalid_deck", "x", "next_deal", 0), "wrong_phase")


def test_order_parse_problems_before_not_your_turn():
    """§8: unknown_move_type, invalid_move, invalid_player and invalid_card come before not_your_turn."""
    s = new(EX1)  # seat 1 to move
    refuse(s, BadMove("unknown_move_type", "x", "fly", 0), "unknown_move_type")
    refuse(s, BadMove("invalid_move", "x", "marriage", 0), "invalid_move")
    refuse(s, BadMove("invalid_card", "x", "play", 0), "invalid_card")
    refuse(claimed_ex3(), BadMove("invalid_move", "deck is not a list", "next_deal", 0), "invalid_move")


def test_order_not_your_turn_before_invalid_deck():
    """§8: not_your_turn comes before invalid_deck."""
    s = claimed_ex3()
    refuse(s, NextDeal(0, EX4[:-1]), "not_your_turn")
    refuse(s, BadMove("invalid_deck", "x", "next_deal", 0), "not_your_turn")
    refuse(s, BadMove("invalid_deck", "x", "next_deal", 1), "invalid_deck")


def test_order_not_your_turn_before_game_rules():
    """§8: a move by the seat not to move is not_your_turn even if it breaks a game rule too."""
    s = ex([Play(1, c("10S"))])  # seat 0 to follow
    refuse(s, Claim(1), "not_your_turn")
    refuse(s, Play(1, c("QC")), "not_your_turn")


def test_order_not_leader_before_claim_not_allowed():
    """§8: a follower's claim under auto_claim is not_leader."""
    s = ex([Play(1, c("10S"))], auto_claim=True)
    refuse(s, Claim(0), "not_leader")


def test_order_marriage_pending_before_talon_closed():
    """§8: after close and marriage, another close is marriage_pending."""
    s = ex([Close(1), Marriage(1, CL)], deck=EX4)
    refuse(s, Close(1), "marriage_pending")
    refuse(s, Exchange(1), "marriage_pending")


def test_order_talon_closed_before_no_trump_jack():
    """§8: exchange without the Jack after closing is talon_closed."""
    refuse(ex([Close(1)], deck=EX4), Exchange(1), "talon_closed")


def test_order_talon_exhausted_before_no_trump_jack():
    """§8: exchange without the Jack at talon size 0 is talon_exhausted."""
    refuse(ex5(5), Exchange(0), "talon_exhausted")


def test_order_no_trump_jack_before_talon_too_small():
    """§8: exchange without the Jack at talon size 2 is no_trump_jack."""
    s = position("QD 10D AH JD KS", "AS JC JH QS QC", "S", leader=0, talon="AD", trump_card="10S")
    assert S.talon_size(s) == 2
    refuse(s, Exchange(0), "no_trump_jack")


def test_order_no_marriage_before_marriage_requires_trick():
    """§8: with marriage_requires_trick, declaring a marriage one does not hold is no_marriage."""
    refuse(new(EX4, marriage_requires_trick=True), Marriage(1, H), "no_marriage")


def test_order_card_not_in_hand_before_must_play_marriage_card():
    """§8: after a marriage, leading a card not in hand is card_not_in_hand."""
    refuse(ex(EX2_STEP5), Play(0, c("AH")), "card_not_in_hand")


def test_order_must_follow_suit_before_must_head_trick():
    """§8: playing another suit while holding a higher card of the led suit is must_follow_suit."""
    s = position("JS QS", "AH JH KD", "C", leader=0, trick="QH")
    refuse(s, Play(1, c("KD")), "must_follow_suit")


# --- check_state and purity ---------------------------------------------------------------------


def test_check_state_accepts_positions_reached_in_play():
    """conventions.md state validation: every position of the worked examples is consistent."""
    states = [ex5(k) for k in range(11)] + [ex(EX3_STEP2[:k]) for k in range(len(EX3_STEP2) + 1)]
    states += [claimed_ex3(), finished_match(), S.apply(claimed_ex3(), NextDeal(1, EX4))]
    for s in states:
        S.check_state(s)


def test_check_state_phase_at_the_target_boundary():
    """§7.4: the match is over exactly when a seat has reached the target: game points equal to the
    target are game_over, never deal_over; one short of it is never game_over."""
    s = finished_match()
    assert s.phase is Phase.GAME_OVER and max(s.game_points) == s.options.target == 3
    S.check_state(s)
    for bad in (s._replace(phase=Phase.DEAL_OVER, to_move=1 - s.dealer), s._replace(options=dataclasses.replace(s.options, target=4))):
        with pytest.raises(InvalidState) as info:
            S.check_state(bad)
        assert list(info.value.errors) == ["phase"], info.value.errors
    with pytest.raises(InvalidState) as info:
        S.check_state(s._replace(to_move=0))  # nobody moves in a finished match
    assert list(info.value.errors) == ["to_move"], info.value.errors


def test_check_state_hand_sizes_once_the_talon_is_closed():
    """§5.1 with the talon closed (so the "5 cards while the talon lasts" rule is silent): the leader
    holds as many cards as the follower, less the card led, and nobody more than 5."""
    s = run(new(EX6), *EX6_CLOSED)  # closed by seat 0, 5 cards each, seat 0 to lead
    S.check_state(s)
    moved = s._replace(hands=(s.hands[0][1:], s.hands[1] + s.hands[0][:1]))  # 4 and 6
    six_each = s._replace(hands=(s.hands[0] + s.talon[:1], s.hands[1] + s.talon[1:2]), talon=s.talon[2:])
    for bad in (moved, six_each):
        with pytest.raises(InvalidState) as info:
            S.check_state(bad)
        assert list(info.value.errors) == ["hands"], info.value.errors


def test_check_state_pending_marriage_needs_its_king_or_queen_in_the_leaders_hand():
    """§6.5: a declared marriage obliges the leader to lead its K or Q next: a pending marriage whose
    K and Q have left the leader's hand is invalid_state at ``marriage_pending``."""
    s = ex(EX2_STEP5)  # seat 0 declared hearts and holds KH and QH
    assert s.marriage_pending is H and s.leader == 0
    S.check_state(s)
    hand = tuple(x for x in s.hands[0] if x not in (c("KH"), c("QH"))) + s.talon[:2]
    with pytest.raises(InvalidState) as info:
        S.check_state(s._replace(hands=(hand, s.hands[1]), talon=s.talon[2:] + (c("KH"), c("QH"))))
    assert list(info.value.errors) == ["marriage_pending"], info.value.errors


def test_check_state_bounds_seats_and_seq():
    """conventions.md state validation: ``closed_by`` and ``to_move`` are 0, 1 or null and ``seq`` is
    never negative; each refusal names its field with that reason."""
    s = new(EX1)
    for change, path, reason in (
        ({"closed_by": 2}, "closed_by", "must be 0, 1 or null"),
        ({"to_move": 2}, "to_move", "must be 0, 1 or null"),
        ({"to_move": -1}, "to_move", "must be 0, 1 or null"),
        ({"seq": -1}, "seq", "must not be negative"),
    ):
        with pytest.raises(InvalidState) as info:
            S.check_state(s._replace(**change))
        assert reason in info.value.errors.get(path, []), (change, info.value.errors)


def _swap(pair: tuple[Any, Any], seat: int, value: Any) -> tuple[Any, Any]:
    return (value, pair[1]) if seat == 0 else (pair[0], value)


BAD_STATES: dict[str, tuple[Callable[[State], State], str]] = {
    "card_twice": (lambda s: s._replace(hands=_swap(s.hands, 0, (s.hands[1][0],) + s.hands[0][1:])), "hands"),
    "card_missing": (lambda s: s._replace(talon=s.talon[1:]), "hands"),
    "wrong_hand_sizes": (lambda s: s._replace(hands=(s.hands[0][1:], s.hands[1] + s.hands[0][:1])), "hands"),
    "to_move_wrong": (lambda s: s._replace(to_move=0), "to_move"),
    "trump_suit_not_the_trump_cards": (lambda s: s._replace(trump_suit=SP), "trump_suit"),
    "closing_without_closer": (lambda s: s._replace(closing=Closing(0, 0)), "closing"),
    "game_points_without_results": (lambda s: s._replace(game_points=(2, 0)), "game_points"),
    "deal_two_without_results": (lambda s: s._replace(deal_number=2), "results"),
    "result_of_no_deal": (lambda s: s._replace(result=claimed_ex3().result), "result"),
    "trick_of_two_cards": (lambda s: s._replace(trick=(s.hands[1][0], s.hands[0][0]), hands=(s.hands[0][1:], s.hands[1][1:])), "trick"),
}


@pytest.mark.parametrize("case", list(BAD_STATES))
def test_check_state_refuses_inconsistent_states(case: str):
    """conventions.md state validation, §5.1: inconsistent states raise InvalidState naming the field path."""
    change, path = BAD_STATES[case]
    with pytest.raises(InvalidState) as info:
        S.check_state(change(new(EX1)))
    assert info.value.code == "invalid_state"
    assert path in info.value.errors, info.value.errors


def test_apply_never_mutates_its_input():
    """Engines are pure: apply returns a new state and leaves its input unchanged."""
    state = new(EX1)
    for move in EX3_STEP2 + [Claim(0), NextDeal(1, EX4)]:
        before = copy.deepcopy(state)
        after = S.apply(state, move)
        assert state == before and after != state
        assert after.seq == state.seq + 1
        state = after
