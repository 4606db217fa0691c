"""Yukon engine: one rule per test, each citing ``docs/rules/yukon.md``.

Positions come from real decks (the spec's §10 deck Y4 where possible) plus moves, or from a deck
built to deal chosen hands (``deck_for``).
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable, Sequence
from typing import Any

import pytest
from flask.testing import FlaskClient

from service.cards import Card
from service.cards.packs import full_52
from service.engines import yukon as Y
from service.engines.base import BadMove, BadSetup, IllegalMove, InvalidState, is_listed
from service.engines.moves import NextDeal
from service.engines.yukon import Options, Phase, Play, State
from service.schemas import SCHEMAS
from tests.codes import section_8

PACK = full_52()
CODEC = SCHEMAS["yukon"]

# --- helpers ----------------------------------------------------------------------------------


def c(text: str) -> Card:
    return Card.parse(text)


def cs(text: str) -> tuple[Card, ...]:
    return tuple(Card.parse(t) for t in text.split())


Y4 = cs(
    "AH 7H JS QH 4H JH 2C 6C JC 3S 5D 9D 9S QC 8S 2S KD 4C KS 10C JD 3D 6H 8C 4S 5S 6S 7S 10S QS AS 2H 3H 5H 8H "
    "9H 10H KH 2D 4D 6D 7D 8D 10D QD AD 3C 5C 7C 9C KC AC"
)
# §10 Example 4: the whole hand of deck Y4, trick by trick (seat:card in play order).
Y4_HAND = [
    "1:AH 2:7H 3:JS 0:QH", "3:JD 0:3D 1:KD 2:JH", "3:2C 0:6C 1:JC 2:QC", "1:4H 2:3S 3:5D 0:2H",
    "1:9S 2:7S 3:8S 0:2S", "1:6H 2:5H 3:8H 0:9H", "0:9D 1:7D 2:8D 3:2D", "0:10C 1:6S 2:4C 3:5C",
    "0:5S 1:10S 2:QS 3:KS", "3:4S 0:4D 1:3H 2:8C", "3:AS 0:6D 1:10H 2:KH", "3:10D 0:QD 1:AD 2:3C",
    "1:9C 2:KC 3:AC 0:7C",
]


def plays(rows: Sequence[str]) -> list[Play]:
    return [Play(int(t.split(":")[0]), c(t.split(":")[1])) for row in rows for t in row.split()]


def new(deck: Sequence[Card] = Y4, players: int = 4, **options: Any) -> State:
    return Y.new_game(Options(**options), players, tuple(deck))


def run(state: State, *moves: Any) -> State:
    for move in moves:
        state = Y.apply(state, move)
    return state


def refuse(state: State, move: Any, code: str) -> None:
    """``move`` is refused with ``code``, is not listed, and the state is left as it was."""
    before = copy.copy(state)
    with pytest.raises(IllegalMove) as info:
        Y.apply(state, move)
    assert info.value.code == code, info.value.detail
    assert state == before
    assert not is_listed(move, Y.legal_moves(state))


def legal_cards(state: State) -> set[Card]:
    return {m.card for m in Y.legal_moves(state) if isinstance(m, Play)}


def deck_for(hands: Sequence[str], players: int, dealer: int = 0, stock: str = "", pack: Sequence[Card] = PACK) -> tuple[Card, ...]:
    """A deck dealing these hands (§4: one card at a time from eldest) with the stock starting ``stock``."""
    hs = [cs(h) for h in hands]
    assert all(len(h) == 5 for h in hs)
    eldest = (dealer + 1) % players
    top: list[Card] = []
    for r in range(5):
        for i in range(players):
            top.append(hs[(eldest + i) % players][r])
    head = list(cs(stock))
    rest = [x for x in pack if x not in top and x not in head]
    deck = tuple(top + head + rest)
    assert sorted(map(str, deck)) == sorted(map(str, pack))
    return deck


def y4_after(tricks: int, **options: Any) -> State:
    return run(new(**options), *plays(Y4_HAND[:tricks]))


def y4_hand_over(scores: tuple[int, ...] | None = None, **options: Any) -> State:
    state = new(**options)
    if scores is not None:
        state = state._replace(scores=scores)
    return run(state, *plays(Y4_HAND))


# --- §2 trick rank and card points ----------------------------------------------------------------


def test_grand_yukon_wins_any_trick():
    """§2, §6.1: JS takes the trick even after another Yukon was played first."""
    assert Y.trick_winner(cs("JH 2H JS AH")) == 2
    assert Y.trick_winner(cs("JS JD")) == 0


def test_first_yukon_played_beats_later_yukons():
    """§2: of several ordinary Yukons, the one played first wins."""
    assert Y.trick_winner(cs("2D JC AD JH")) == 1
    assert Y.trick_winner(cs("JD 3D KD JH")) == 0  # §10 Example 2


def test_a_yukon_beats_every_card_of_the_suit_led():
    """§2: a Yukon of any printed suit beats the ace of the suit led."""
    assert Y.trick_winner(cs("AH JC")) == 1


def test_highest_card_of_the_suit_led_wins_without_yukons():
    """§2: A K Q 10 9 … 2 within the suit led (the ten ranks below the queen)."""
    assert Y.trick_winner(cs("10S QS")) == 1
    assert Y.trick_winner(cs("KS AS QS")) == 1
    assert Y.trick_winner(cs("9C 10C 2C")) == 1


def test_off_suit_cards_cannot_win():
    """§2: a non-jack card of another suit never wins, whatever its rank."""
    assert Y.trick_winner(cs("2H AS AD AC")) == 0


def test_card_points_table():
    """§2: JS 15, other Yukons 10, tens 10, aces 5, kings 3, queens 2, 2–9 nothing; 125 in all."""
    assert Y.card_points(cs("JS")) == 15
    assert [Y.card_points((x,)) for x in cs("JH JD JC 10S AS KS QS 9S 2S")] == [10, 10, 10, 10, 5, 3, 2, 0, 0]
    assert Y.card_points(PACK) == 125


def test_three_player_pack_still_totals_125():
    """§2: the removed two is worth nothing."""
    for two in Y.REMOVABLE_TWOS:
        pack = Y.pack(Options(removed_two=two), 3)
        assert len(pack) == 51 and c(two) not in pack and Y.card_points(pack) == 125


# --- §4 setup and deal ----------------------------------------------------------------------------


def test_deal_five_cards_one_at_a_time_from_eldest():
    """§4: seat (e+i) % n receives deck[i], deck[i+n], … deck[i+4n]; the rest is the stock, in order."""
    s = new()
    assert s.hands[1] == cs("AH 4H JC 9S KD") and s.hands[0] == cs("QH 6C 9D 2S 10C")
    assert s.stock == Y4[20:]


@pytest.mark.parametrize(("players", "stock"), [(2, 42), (3, 36), (4, 32)])
def test_stock_size_per_player_count(players: int, stock: int):
    """§4 step 3: stock sizes 42, 36, 32 — a multiple of the player count."""
    s = Y.new_game(Options(), players, Y.pack(Options(), players))
    assert len(s.stock) == stock and all(len(h) == 5 for h in s.hands)


def test_eldest_leads_the_first_trick():
    """§4 step 4: the seat left of the dealer leads."""
    s = new(dealer=2)
    assert s.leader == s.to_move == 3 and Y.to_move(s) == frozenset({3})


# --- §6.1 leading and following ---------------------------------------------------------------------


def test_leader_may_lead_any_card_including_yukons():
    """§6.1 leading: every card in hand is legal."""
    s = new()
    assert legal_cards(s) == set(s.hands[1])


def test_must_follow_suit_with_a_non_jack_card():
    """§6.1 rule 1: a holder of the suit led must play a card of it (any one)."""
    s = y4_after(1)
    s = run(s, Play(3, c("JD")))
    assert legal_cards(s) == set(cs("9D 3D"))
    refuse(s, Play(0, c("6C")), "must_follow_suit")


def test_jack_of_the_suit_led_is_not_a_suit_card():
    """§6.1, §9 #4: the jack of hearts is not a heart; holding 7H, playing JH is must_follow_suit."""
    s = run(new(), Play(1, c("AH")))
    assert legal_cards(s) == {c("7H")}
    refuse(s, Play(2, c("JH")), "must_follow_suit")


def test_jack_alone_does_not_count_as_holding_the_suit():
    """§6.1, §10 Example 3: a player whose only club is JC is void in clubs and must play a Yukon."""
    s = run(y4_after(2), Play(3, c("2C")), Play(0, c("6C")))
    assert legal_cards(s) == {c("JC")}
    refuse(s, Play(1, c("4H")), "must_play_yukon")


def test_void_player_must_play_a_yukon_any_one():
    """§6.1 rule 2, §9 #5: without the suit led, any jack of the player's choice, JS included."""
    deck = deck_for(["JS JD 2S 3S 4S", "2H 3H 4H 5H 6H"], 2, dealer=0)  # seat 1 is eldest
    s = Y.new_game(Options(), 2, deck)
    assert s.hands[1] == cs("2H 3H 4H 5H 6H") and s.hands[0] == cs("JS JD 2S 3S 4S")
    s = run(s, Play(1, c("2H")))
    assert legal_cards(s) == set(cs("JS JD"))
    refuse(s, Play(0, c("2S")), "must_play_yukon")


def test_void_player_without_a_yukon_may_play_anything():
    """§6.1 rule 3: no card of the suit led and no jack: any card."""
    deck = deck_for(["2S 3S 4S 5D 6C", "2H 3H 4H 5H 6H"], 2, dealer=0)
    s = run(Y.new_game(Options(), 2, deck), Play(1, c("2H")))
    assert legal_cards(s) == set(cs("2S 3S 4S 5D 6C"))


def test_led_yukon_fixes_its_printed_suit():
    """§6.1, §9 #6: after JD is led, diamonds must be followed; a jack is not a diamond-follow."""
    s = run(y4_after(1), Play(3, c("JD")), Play(0, c("3D")))
    assert legal_cards(s) == {c("KD")}
    refuse(s, Play(1, c("JC")), "must_follow_suit")


def test_led_yukon_void_follower_must_play_a_yukon():
    """§6.1, seed sentence 6: without the led Yukon's suit, a holder of another Yukon must play it."""
    s = run(y4_after(1), Play(3, c("JD")), Play(0, c("3D")), Play(1, c("KD")))
    assert legal_cards(s) == {c("JH")}
    refuse(s, Play(2, c("3S")), "must_play_yukon")


def test_led_yukon_still_wins_unless_the_grand_yukon_is_played():
    """§9 #6: the led Yukon wins the trick; JS played later takes it."""
    deck = deck_for(["JS 2S 3S 4S 5S", "JD 3H 4H 5H 6H"], 2, dealer=0)
    s = run(Y.new_game(Options(), 2, deck), Play(1, c("JD")), Play(0, c("JS")))
    assert s.last_trick is not None and s.last_trick.winner == 0 and s.last_trick.points == 25


# --- §6.1 completing a trick, drawing ---------------------------------------------------------


def test_winner_takes_the_trick_and_leads_next():
    """§6.1 effect 2 and 4: cards go to won[winner] in play order; the winner leads."""
    s = y4_after(1)
    assert s.won[3] == cs("AH 7H JS QH") and s.trick == ()
    assert s.leader == s.to_move == 3


def test_each_seat_draws_after_each_trick_winner_first():
    """§6.1 effect 3, seed sentence 7: draws in the order winner, winner+1, …"""
    s = y4_after(1)
    assert s.last_trick is not None
    assert [(d.player, str(d.card)) for d in s.last_trick.draws] == [(3, "JD"), (0, "3D"), (1, "6H"), (2, "8C")]
    assert all(len(h) == 5 for h in s.hands) and len(s.stock) == 28


def test_no_draws_once_the_stock_is_empty():
    """§6.1 effect 3, §9 #7: once the stock is exhausted the remaining cards are played out."""
    s = y4_after(9)
    assert not s.stock and s.last_trick is not None and s.last_trick.draws == ()
    assert all(len(h) == 4 for h in s.hands)


def test_hand_ends_when_every_hand_is_empty():
    """§6.1 effect 5, §7: after 52/n tricks the hand is over."""
    s = y4_after(12)
    assert s.phase is Phase.PLAY
    s = y4_after(13)
    assert s.phase is Phase.DEAL_OVER and s.to_move is None and Y.to_move(s) == frozenset({1})


# --- §6.2 next deal ---------------------------------------------------------------------------


def test_next_deal_by_the_seat_left_of_the_dealer():
    """§6.2: only the new dealer deals; the dealer rotates left and eldest leads."""
    s = y4_hand_over()
    assert Y.legal_moves(s) == [NextDeal(1, pack=PACK)]
    refuse(s, NextDeal(0, Y4), "not_your_turn")
    t = Y.apply(s, NextDeal(1, Y4))
    assert (t.dealer, t.hand_number, t.leader, t.to_move, t.scores) == (1, 2, 2, 2, (10, 115))
    assert t.hands[2] == cs("AH 4H JC 9S KD") and t.hand_points is None and t.last_trick is None


def test_dealer_rotates_every_hand():
    """§3 dealer, §7: the deal passes left each hand (3 players: 0 → 1 → 2 → 0)."""
    s = Y.new_game(Options(), 3, Y.pack(Options(), 3))
    dealers = [s.dealer]
    rng = random.Random(3)
    while len(dealers) < 4:
        legal = Y.legal_moves(s)
        move = legal[rng.randrange(len(legal))]
        if isinstance(move, NextDeal):
            move = NextDeal(move.player, Y.pack(Options(), 3))
            s = Y.apply(s, move)
            dealers.append(s.dealer)
        else:
            s = Y.apply(s, move)
    assert dealers == [0, 1, 2, 0]


# --- §7 scoring and the end -------------------------------------------------------------------


def test_hand_points_add_up_to_125_with_no_last_trick_bonus():
    """§7: points are the cards' values only; the sides' hand points add up to 125."""
    s = y4_hand_over()
    assert s.hand_points == (10, 115) and sum(s.hand_points) == 125


def test_partners_score_together():
    """§2, §7: side 0 = seats 0 & 2, side 1 = seats 1 & 3; totals show each seat its side's score."""
    s = y4_hand_over()
    assert Y.scores(s)["totals"] == [10, 115, 10, 115]
    assert Y.sides(s) == (0, 1, 0, 1)


def test_side_reaching_the_target_alone_wins():
    """§7, §10 Example 5: [150, 140] + [10, 115] = [160, 255]: side 1 (seats 1 and 3) wins."""
    s = y4_hand_over((150, 140))
    assert s.phase is Phase.GAME_OVER and s.winner == 1
    outcome = Y.outcome(s)
    assert outcome is not None and outcome.winners == frozenset({1, 3})


def test_higher_total_wins_when_both_sides_pass_the_target():
    """§7, §9 #2: both sides pass 250 in the same hand: the higher total wins."""
    s = y4_hand_over((245, 150))
    assert s.scores == (255, 265) and s.phase is Phase.GAME_OVER and s.winner == 1


def test_tie_at_the_top_past_the_target_plays_another_hand():
    """§7, §9 #2: two sides share the highest score at or past the target: nobody has won yet."""
    s = y4_hand_over((255, 150))
    assert s.scores == (265, 265) and s.phase is Phase.DEAL_OVER and s.winner is None
    assert Y.outcome(s) is None and Y.status(s) == "deal_over"


def test_below_the_target_play_goes_on():
    """§7: nobody at the target: deal_over, waiting for the next dealer."""
    s = y4_hand_over()
    assert s.phase is Phase.DEAL_OVER and Y.status(s) == "deal_over"


# --- §3 options -------------------------------------------------------------------------------


def test_option_dealer_sets_the_first_dealer():
    """§3 dealer: dealer 2 deals from seat 3 on; seat 3 leads."""
    s = new(dealer=2)
    assert s.dealer == 2 and s.hands[3] == cs("AH 4H JC 9S KD")


def test_option_dealer_must_be_a_seat():
    """§3 dealer: 0..players-1, else invalid_option."""
    with pytest.raises(BadSetup) as info:
        Y.new_game(Options(dealer=3), 3, Y.pack(Options(), 3))
    assert info.value.code == "invalid_option"


def test_option_partnerships_false_gives_four_sides():
    """§3 partnerships: false = four individual sides; each seat scores its own tricks."""
    s = y4_hand_over(partnerships=False)
    assert s.scores == s.hand_points and len(s.scores) == 4
    assert s.hand_points == (10, 29, 0, 86)
    assert Y.scores(s)["totals"] == [10, 29, 0, 86]


def test_option_partnerships_false_winner_is_one_seat():
    """§3 partnerships false, §7: the winner is the single seat with the highest score."""
    s = y4_hand_over(partnerships=False, target=80)
    outcome = Y.outcome(s)
    assert s.winner == 3 and outcome is not None and outcome.winners == frozenset({3})


def test_option_partnerships_ignored_for_two_or_three_players():
    """§3 partnerships: ignored for 2 or 3 players (one side per seat either way)."""
    for n in (2, 3):
        a = Y.new_game(Options(partnerships=True), n, Y.pack(Options(), n))
        b = Y.new_game(Options(partnerships=False), n, Y.pack(Options(), n))
        assert Y.sides(a) == Y.sides(b) == tuple(range(n))


def test_option_target_ends_the_game_earlier():
    """§3 target: with target 100 the first hand of Y4 (115 for side 1) ends the game."""
    assert y4_hand_over(target=100).winner == 1
    assert y4_hand_over().winner is None


def test_option_removed_two_changes_the_three_player_pack():
    """§3 removed_two: with 2D removed, 2C is in play and 2D is invalid_card."""
    opts = Options(removed_two="2D")
    pack = Y.pack(opts, 3)
    assert c("2C") in pack and c("2D") not in pack
    s = Y.new_game(opts, 3, pack)
    refuse(s, Play(1, c("2D")), "invalid_card")
    with pytest.raises(BadSetup):
        Y.new_game(Options(), 3, pack)  # the default pack lacks 2C, this deck lacks 2D


def test_option_removed_two_ignored_for_two_and_four_players():
    """§3 removed_two: ignored for 2 or 4 players (the full pack)."""
    for n in (2, 4):
        assert Y.pack(Options(removed_two="2S"), n) == PACK


# --- §5 views --------------------------------------------------------------------------------------


def test_view_shows_only_the_own_hand():
    """§5: hands are the owner's only; others see counts; the stock is nobody's."""
    s = new()
    v = Y.view(s, 1)
    assert v["hand"] == s.hands[1] and v["hand_counts"] == [5, 5, 5, 5] and v["stock_count"] == 32
    assert "stock" not in v and "hands" not in v
    assert "hand" not in Y.view(s, None)


def test_won_cards_are_counts_during_play_and_shown_after_the_hand():
    """§5, §9 #8: won tricks lie face down until the hand ends."""
    s = y4_after(1)
    assert Y.view(s, 0)["won"] is None and Y.view(s, 0)["won_counts"] == [0, 0, 0, 4]
    over = y4_hand_over()
    assert Y.view(over, None)["won"] == over.won


def test_a_drawn_card_is_shown_only_to_its_drawer():
    """§5 last_trick, §9 #8: each draw's card is shown only to the seat that drew it."""
    s = y4_after(1)
    draws = Y.view(s, 0)["last_trick"]["draws"]  # type: ignore[index]
    assert draws == [{"player": 3, "card": None}, {"player": 0, "card": c("3D")},
                     {"player": 1, "card": None}, {"player": 2, "card": None}]
    assert all(d["card"] is None for d in Y.view(s, None)["last_trick"]["draws"])  # type: ignore[index]
    _, events = Y.step(y4_after(0), Play(1, c("AH")))
    assert all(e["type"] != "card_drawn" for e in events)


def test_visible_cards_grant_each_seat_its_own_draw_only():
    """§5 last_trick, §9 #8: the leak checks' oracle (``visible_cards``) grants a seat the card it
    drew and not the cards the others drew, which stay in their hands unseen."""
    s = y4_after(1)
    assert s.last_trick is not None and not s.trick
    for seat in range(4):
        seen = Y.visible_cards(s, seat)
        for d in s.last_trick.draws:
            assert (d.card in seen) == (d.player == seat), (seat, d)


def test_legal_moves_only_in_the_view_of_the_seat_to_move():
    """conventions.md views: a seat's view lists its moves when it is to move."""
    s = new()
    assert "legal_moves" in Y.view(s, 1) and "legal_moves" not in Y.view(s, 0)


# --- §8 errors: every code, and their order ------------------------------------------------------

SPEC_CODES = section_8("yukon")  # §8's table, in its order (tests/codes.py)


def _setup_error(make: Callable[[], Any]) -> str:
    try:
        make()
    except (BadSetup, InvalidState) as exc:
        return exc.code
    return "accepted"


SETUP_CASES: dict[str, Callable[[], Any]] = {
    "invalid_players": lambda: Y.new_game(Options(), 5, Y4),
    "invalid_option": lambda: CODEC.load_options({"removed_two": "3C"}),
    "invalid_deck": lambda: Y.new_game(Options(), 3, Y4),  # 52 cards for three players
    "invalid_state": lambda: Y.check_state(new()._replace(stock=Y4[21:])),
}

MOVE_CASES: dict[str, Callable[[], tuple[State, Any]]] = {
    "unknown_move_type": lambda: (new(), BadMove("unknown_move_type", "no such move", "fly", 1)),
    "game_over": lambda: (y4_hand_over((150, 140)), NextDeal(1, Y4)),
    "wrong_phase": lambda: (y4_hand_over(), Play(1, c("AH"))),
    "invalid_player": lambda: (new(), BadMove("invalid_player", "player 7", "play", None)),
    "not_your_turn": lambda: (new(), Play(0, c("QH"))),
    "invalid_card": lambda: (Y.new_game(Options(), 3, Y.pack(Options(), 3)), Play(1, c("2C"))),
    "card_not_in_hand": lambda: (new(), Play(1, c("QH"))),
    "must_follow_suit": lambda: (run(new(), Play(1, c("AH"))), Play(2, c("JH"))),
    "must_play_yukon": lambda: (run(new(), Play(1, c("AH")), Play(2, c("7H"))), Play(3, c("2C"))),
}


def test_every_spec_error_code_has_a_case():
    """§8: the tables below provoke exactly the codes of the spec's list."""
    assert set(SETUP_CASES) | set(MOVE_CASES) == set(SPEC_CODES)


@pytest.mark.parametrize("code", list(SETUP_CASES))
def test_setup_error_code(code: str):
    """§3, §5, §8: creation and state problems are reported with their codes."""
    assert _setup_error(SETUP_CASES[code]) == code


@pytest.mark.parametrize("code", list(MOVE_CASES))
def test_move_error_code(code: str):
    """§8: each refusal reason is reported with its code; the state is unchanged."""
    state, move = MOVE_CASES[code]()
    if code == "game_over":
        with pytest.raises(IllegalMove) as info:
            Y.apply(state, move)
        assert info.value.code == "game_over"
    else:
        refuse(state, move, code)


def test_next_deal_with_a_bad_deck_is_invalid_deck():
    """§6.2: a next_deal deck that is not the game's pack; for three players the 52-card pack too."""
    s = y4_hand_over()
    refuse(s, NextDeal(1, Y4[:-1]), "invalid_deck")
    three = Y.new_game(Options(), 3, Y.pack(Options(), 3))
    three = three._replace(phase=Phase.DEAL_OVER, to_move=None)
    with pytest.raises(IllegalMove) as info:
        Y.apply(three, NextDeal(1, PACK))
    assert info.value.code == "invalid_deck"


def test_order_game_over_before_the_move_type():
    """§6: game_over is checked first, then the type."""
    s = y4_hand_over((150, 140))
    for move in (BadMove("unknown_move_type", "x", "fly", 0), Play(1, c("AH")), BadMove("invalid_player", "x", "play", None)):
        with pytest.raises(IllegalMove) as info:
            Y.apply(s, move)
        assert info.value.code == "game_over"


def test_order_unknown_move_type_before_wrong_phase():
    """§6: the type is checked before the phase."""
    refuse(y4_hand_over(), BadMove("unknown_move_type", "x", "fly", 1), "unknown_move_type")


def test_order_wrong_phase_before_invalid_player():
    """§6.1, §6.2: wrong_phase comes before the seat checks."""
    refuse(y4_hand_over(), BadMove("invalid_player", "x", "play", None), "wrong_phase")
    refuse(new(), BadMove("invalid_player", "x", "next_deal", None), "wrong_phase")
    refuse(new(), NextDeal(1, Y4[:3]), "wrong_phase")


def test_order_not_your_turn_before_invalid_card():
    """§6.1: a move out of turn naming a removed two is not_your_turn."""
    s = Y.new_game(Options(), 3, Y.pack(Options(), 3))
    refuse(s, Play(0, c("2C")), "not_your_turn")
    refuse(s, BadMove("invalid_card", "x", "play", 0), "not_your_turn")
    refuse(s, BadMove("invalid_card", "x", "play", 1), "invalid_card")


def test_order_not_your_turn_before_invalid_deck():
    """§6.2: a wrong seat with a bad deck is not_your_turn."""
    refuse(y4_hand_over(), NextDeal(0, Y4[:-1]), "not_your_turn")


def test_order_card_not_in_hand_before_the_following_rules():
    """§6.1: a card one does not hold is card_not_in_hand even if it would break a follow rule."""
    s = run(new(), Play(1, c("AH")))
    refuse(s, Play(2, c("2S")), "card_not_in_hand")


def test_the_edge_reports_malformed_moves_in_spec_order():
    """§8 through the codec: a bad card string is invalid_card, a missing seat invalid_player."""
    assert CODEC.load_move({"type": "play", "player": 1, "card": "1X"}, 4).code == "invalid_card"
    assert CODEC.load_move({"type": "play", "card": "AH"}, 4).code == "invalid_player"
    assert CODEC.load_move({"type": "fly", "player": 1}, 4).code == "unknown_move_type"
    assert CODEC.load_move({"type": "play", "player": 1}, 4).code == "invalid_move"
    assert CODEC.load_move({"type": "next_deal", "player": 1, "deck": ["ZZ"]}, 4).code == "invalid_deck"
    three_player_deck = [str(x) for x in Y.pack(Options(), 3)]
    move = CODEC.load_move({"type": "next_deal", "player": 1, "deck": three_player_deck}, 3)
    assert isinstance(move, NextDeal) and len(move.deck or ()) == 51


# --- check_state ---------------------------------------------------------------------------------


def test_check_state_accepts_positions_reached_in_play():
    """conventions.md state validation: every position of the Y4 hand is consistent, before and after."""
    s = new()
    Y.check_state(s)
    for move in plays(Y4_HAND):
        s = Y.apply(s, move)
        Y.check_state(s)
    Y.check_state(Y.apply(s, NextDeal(1, Y4)))


BAD_STATES: dict[str, tuple[Callable[[State], State], str]] = {
    "card_missing": (lambda s: s._replace(stock=s.stock[1:]), "hands"),
    "removed_two_in_play": (lambda s: s._replace(players=3), "hands"),
    "to_move_wrong": (lambda s: s._replace(to_move=0), "to_move"),
    "wrong_hand_sizes": (lambda s: s._replace(hands=(s.hands[0] + s.stock[:1],) + s.hands[1:], stock=s.stock[1:]), "hands.0"),
    "scores_per_side": (lambda s: s._replace(scores=(0, 0, 0)), "scores"),
    "won_without_last_trick": (lambda s: s._replace(last_trick=None), "last_trick"),
    "already_won": (lambda s: s._replace(scores=(0, 300)), "phase"),
    "dealer_not_a_seat": (lambda s: s._replace(dealer=s.dealer + 4), "dealer"),
    "negative_score": (lambda s: s._replace(scores=(-5, 0)), "scores"),
    "hand_points_during_play": (lambda s: s._replace(hand_points=(0, 0)), "hand_points"),
}


@pytest.mark.parametrize("case", list(BAD_STATES))
def test_check_state_refuses_inconsistent_states(case: str):
    """conventions.md state validation, §5: inconsistent states raise InvalidState naming the field path."""
    change, path = BAD_STATES[case]
    base = y4_after(1)
    with pytest.raises(InvalidState) as info:
        Y.check_state(change(base))
    assert path in info.value.errors, info.value.errors


def test_check_state_refuses_a_wrong_hand_score():
    """§7: in deal_over the hand points are those of the won cards, and the winner fits the scores."""
    s = y4_hand_over()
    with pytest.raises(InvalidState) as info:
        Y.check_state(s._replace(hand_points=(20, 105)))
    assert "hand_points" in info.value.errors
    with pytest.raises(InvalidState) as info:
        Y.check_state(s._replace(scores=(10, 300)))
    assert "phase" in info.value.errors


def test_check_state_accepts_a_finished_game_whichever_side_won():
    """§7: a game won by side 0 is as consistent as one won by side 1."""
    for start, winner in (((250, 0), 0), ((150, 140), 1)):
        s = y4_hand_over(start)
        assert s.phase is Phase.GAME_OVER and s.winner == winner
        Y.check_state(s)


def test_check_state_refuses_won_cards_that_are_not_whole_tricks():
    """§6: a trick's cards go to its winner together, so each seat's won cards are whole tricks of
    ``players`` cards (3 players: a pile of 4 beside one of 2 is refused)."""
    s = new(Y.pack(Options(), 3), players=3)
    while sum(len(w) for w in s.won) < 6:
        s = Y.apply(s, Y.legal_moves(s)[0])
    assert s.last_trick is not None and not s.trick
    w = s.last_trick.winner
    last = s.won[w][-3:]
    earlier = [x for pile in s.won for x in pile if x not in last]
    other = (w + 1) % 3
    won = [()] * 3
    won[w] = (earlier[0], *last)
    won[other] = tuple(earlier[1:])
    with pytest.raises(InvalidState) as info:
        Y.check_state(s._replace(won=tuple(won)))
    assert "won" in info.value.errors, info.value.errors


def test_check_state_refuses_play_with_every_trick_taken():
    """§6: the hand ends when every hand is empty; a state still in play after the last trick is refused."""
    over = y4_hand_over()
    assert over.last_trick is not None
    w = over.last_trick.winner
    s = over._replace(phase=Phase.PLAY, hand_points=None, scores=(0, 0), to_move=w, leader=w)
    with pytest.raises(InvalidState) as info:
        Y.check_state(s)
    assert "hands" in info.value.errors, info.value.errors


def test_check_state_refuses_a_finished_hand_with_cards_in_hand():
    """§6, §7: a hand is scored only when every hand is empty; a deal_over state whose seat still
    holds a card is refused at ``hands``."""
    over = y4_hand_over()
    w = over.last_trick.winner if over.last_trick else 0
    loser = (w + 1) % 4
    card = over.won[loser][0] if over.won[loser] else next(x for x in over.won[w] if x not in over.won[w][-4:])
    won = tuple(tuple(x for x in pile if x != card) for pile in over.won)
    hands = tuple((card,) if seat == 0 else () for seat in range(4))
    with pytest.raises(InvalidState) as info:
        Y.check_state(over._replace(won=won, hands=hands))
    assert "hands" in info.value.errors, info.value.errors


def test_apply_never_mutates_its_input():
    """Engines are pure: apply returns a new state and leaves its input unchanged."""
    state = new()
    for move in plays(Y4_HAND[:3]):
        wire = CODEC.dump_state(state)
        after = Y.apply(state, move)
        assert CODEC.dump_state(state) == wire and after.seq == state.seq + 1
        state = after


# --- whole games over HTTP ---------------------------------------------------------------------------


def _play_match(client: FlaskClient, players: int, options: dict[str, Any], seed: int, sealed: bool) -> dict[str, Any]:
    """A whole seeded game through the API, random legal moves; every response checked against openapi.yaml."""
    base = "/v1/games/yukon"
    r = client.post(f"{base}/new", json={"players": players, "options": options, "seed": seed})
    assert r.status_code == 201, r.json
    env = r.json
    headers = {"X-Seat-Key": env["table_key"]} if sealed else {}
    rng = random.Random(seed)
    hands = 1
    for _ in range(5000):
        if env["status"] == "finished":
            return env
        (seat,) = env["to_move"]
        if sealed:
            view = client.post(f"{base}/state?as={seat}", json={"token": env["token"]}, headers=headers).json
            legal = view["legal_moves"]
            source = {"token": env["token"]}
        else:
            legal = env["legal_moves"]
            source = {"state": env["state"]}
        move = legal[rng.randrange(len(legal))]
        hands += move["type"] == "next_deal"
        r = client.post(f"{base}/moves", json={**source, "move": move}, headers=headers)
        assert r.status_code == 200, r.json
        env = r.json
    raise AssertionError("the game did not finish")


@pytest.mark.parametrize(("players", "options"), [(4, {}), (3, {"target": 100}), (2, {"target": 100}), (4, {"partnerships": False, "target": 60})])
def test_whole_games_over_http_open(client: FlaskClient, players: int, options: dict[str, Any]):
    """conventions.md: a whole game to the target over HTTP in open mode (the full state travels)."""
    env = _play_match(client, players, options, seed=11 + players, sealed=False)
    target = options.get("target", 250)
    state = env["state"]
    assert state["phase"] == "game_over" and max(state["scores"]) >= target
    assert env["winner"] == [s for s in range(players) if state["sides"][s] == state["winner"]]


@pytest.mark.parametrize(("players", "options"), [(4, {}), (3, {"target": 100}), (2, {"target": 100})])
def test_whole_games_over_http_sealed(sealed: FlaskClient, players: int, options: dict[str, Any]):
    """conventions.md: a whole game over HTTP in sealed mode, relayed with the table key, moves read from views."""
    env = _play_match(sealed, players, options, seed=21 + players, sealed=True)
    assert env["status"] == "finished" and env["winner"]
    assert "hand" not in env["state"] and env["state"]["phase"] == "game_over"
    assert max(env["scores"]["side_totals"]) >= options.get("target", 250)


def test_setup_and_parse_codes_over_http(client: FlaskClient):
    """§3, §5, §8 through the API: invalid_players, invalid_option, invalid_deck, invalid_state, invalid_player."""
    base = "/v1/games/yukon"
    cases = [
        ({"players": 5}, "invalid_players"),
        ({"players": 3, "options": {"removed_two": "3C"}}, "invalid_option"),
        ({"players": 2, "options": {"dealer": 2}}, "invalid_option"),
        ({"players": 3, "deck": [str(x) for x in Y4]}, "invalid_deck"),
    ]
    for body, code in cases:
        r = client.post(f"{base}/new", json=body)
        assert r.status_code == 422 and r.json["code"] == code, (body, r.json)
    env = client.post(f"{base}/new", json={"players": 4, "deck": [str(x) for x in Y4]}).json
    assert env["to_move"] == [1] and env["scores"]["totals"] == [0, 0, 0, 0]
    bad = {**env["state"], "stock": env["state"]["stock"][1:]}
    r = client.post(f"{base}/state", json={"state": bad})
    assert r.status_code == 422 and r.json["code"] == "invalid_state" and "hands" in r.json["errors"]
    r = client.post(f"{base}/moves", json={"state": env["state"], "move": {"type": "play", "player": 4, "card": "AH"}})
    assert r.status_code == 422 and r.json["code"] == "invalid_player"
    r = client.post(f"{base}/moves", json={"state": env["state"], "move": {"type": "play", "player": 0, "card": "ZZ"}})
    assert r.status_code == 422 and r.json["code"] == "not_your_turn"
    r = client.post(f"{base}/moves", json={"state": env["state"], "move": {"type": "play", "player": 1, "card": "ZZ"}})
    assert r.status_code == 422 and r.json["code"] == "invalid_card"


def test_order_invalid_move_after_wrong_phase_before_the_seat_checks():
    """docs/rules/conventions.md invalid_move (not in yukon.md §8; docs/wire.md): after wrong_phase, before invalid_player and not_your_turn."""
    refuse(y4_hand_over(), BadMove("invalid_move", "play needs 'card'", "play", 1), "wrong_phase")
    refuse(new(), BadMove("invalid_move", "play needs 'card'", "play", 0), "invalid_move")
    refuse(new(), BadMove("invalid_move", "type is required", None, None), "invalid_move")
    refuse(new(), BadMove("invalid_move", "x", "next_deal", 1), "wrong_phase")
