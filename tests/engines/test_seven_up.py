"""Seven Up engine: one rule per test, each citing ``docs/rules/seven_up.md``.

Positions come from real decks built with ``deck_for`` (hands, turn-up and the top of the stock
chosen, the rest of the pack after them) plus moves; the §10 examples themselves are the
scenarios in tests/scenarios/seven_up/.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Sequence
from typing import Any, Final

import pytest

from service.cards import Card, Suit
from service.cards.packs import full_52
from service.engines import seven_up as S
from service.engines.base import BadSetup, IllegalMove, InvalidState, is_listed
from service.engines.moves import NextDeal
from service.engines.seven_up import Beg, Discard, Give, Options, Phase, Play, Run, Stand, State
from service.schemas import SCHEMAS
from service.schemas.common import to_wire
from tests.codes import section_8

PACK = full_52()
CODEC = SCHEMAS["seven_up"]

# §10 Example 1's deck.
EX1 = ("2C KS 10D AC 5C 3S 4D 9S QH 10S KD 6H JC 2S 4S 5S 6S 7S 8S JS QS AS 2H 3H 4H 5H 7H 8H 9H 10H "
       "JH KH AH 2D 3D 5D 6D 7D 8D 9D JD QD AD 3C 4C 6C 7C 8C 9C 10C QC KC")
EX1_PLAYS = ("1:KS 0:3S 1:10D 0:KD 0:AC 1:2C 0:10S 1:9S 0:6H 1:QH 1:4D 0:5C")


# --- helpers ----------------------------------------------------------------------------------


def c(text: str) -> Card:
    return Card.parse(text)


def cs(text: str) -> tuple[Card, ...]:
    return tuple(Card.parse(t) for t in text.split())


def deck_for(hands: Sequence[str], turnup: str, stock: str = "", dealer: int = 0) -> tuple[Card, ...]:
    """A 52-card deck dealing ``hands[s]`` (6 cards, in received order) to seat s, then ``turnup``,
    then ``stock`` on top of the stock and the rest of the pack below it."""
    n = len(hands)
    held = [cs(h) for h in hands]
    order = S.dealing_order(n, dealer)
    head: list[Card] = []
    for half in (slice(0, 3), slice(3, 6)):
        for seat in order:
            head += held[seat][half]
    head.append(c(turnup))
    head += cs(stock)
    rest = [x for x in PACK if x not in head]
    deck = tuple(head + rest)
    assert len(deck) == 52 and len(set(deck)) == 52
    return deck


def new(deck: Sequence[Card], players: int = 2, **options: Any) -> State:
    return S.new_game(Options(**options), players, tuple(deck))


def run(state: State, *moves: Any) -> State:
    for move in moves:
        state = S.apply(state, move)
    return state


def plays(state: State, text: str) -> State:
    """Apply ``"1:KS 0:3S ..."`` plays."""
    for item in text.split():
        seat, card = item.split(":")
        state = S.apply(state, Play(int(seat), c(card)))
    return state


def refuse(state: State, move: Any, code: str) -> str:
    """``move`` is refused with ``code``, is not listed, and the state is left as it was."""
    before = copy.deepcopy(state)
    with pytest.raises(IllegalMove) as info:
        S.apply(state, move)
    assert info.value.code == code, info.value.detail
    assert state == before
    if code not in ("invalid_deck", "game_over"):
        assert not is_listed(move, S.legal_moves(state))
    PROVOKED.add(code)
    return code


def legal(state: State) -> set[Any]:
    return set(S.legal_moves(state))


def play_set(seat: int, cards: str) -> set[Play]:
    return {Play(seat, x) for x in cs(cards)}


def parse(move: dict[str, Any], players: int = 2) -> Any:
    return CODEC.load_move(move, players)


PROVOKED: set[str] = set()


# --- §2, §4 setup and deal --------------------------------------------------------------------


def test_deal_two_packets_of_three_from_eldest_then_turnup():
    """§4 index map, 2 players: seat 1 gets D[0..2] and D[6..8], seat 0 D[3..5] and D[9..11], turn-up D[12]."""
    deck = tuple(PACK)
    s = new(deck)
    assert s.hands[1] == deck[0:3] + deck[6:9]
    assert s.hands[0] == deck[3:6] + deck[9:12]
    assert s.turnup == deck[12] and s.first_suit is deck[12].suit
    assert s.stock == deck[13:]
    assert (s.phase, s.to_move, s.eldest) == (Phase.STAND_OR_BEG, (1,), 1)


def test_deal_four_players_packets_in_dealing_order():
    """§4 index map, 4 players, dealer 0: packets to seats 1, 2, 3, 0; turn-up D[24]."""
    deck = tuple(PACK)
    s = new(deck, players=4)
    for i, seat in enumerate((1, 2, 3, 0)):
        assert s.hands[seat] == deck[3 * i : 3 * i + 3] + deck[12 + 3 * i : 15 + 3 * i]
    assert s.turnup == deck[24]


@pytest.mark.parametrize(("players", "stock"), [(2, 39), (3, 33), (4, 27)])
def test_stock_size_per_player_count(players: int, stock: int):
    """§4 step 4: 39, 33 or 27 cards stay in the stock."""
    assert len(new(PACK, players=players).stock) == stock


def test_dealer_option_sets_the_first_dealer_and_eldest():
    """§3 ``dealer``: the dealer of the first deal; the eldest is on his left and begins."""
    s = new(PACK, players=3, dealer=2)
    assert (s.dealer, s.eldest, s.to_move) == (2, 0, (0,))
    assert s.hands[0] == tuple(PACK[0:3]) + tuple(PACK[9:12])


def test_new_game_refuses_a_deck_that_is_not_the_pack():
    """§4: a deck that is not exactly the 52 cards is ``invalid_deck``."""
    with pytest.raises(BadSetup) as info:
        new(PACK[:-1] + PACK[:1])
    assert info.value.code == "invalid_deck"
    PROVOKED.add("invalid_deck")


@pytest.mark.parametrize("players", [1, 5])
def test_players_are_two_three_or_four(players: int):
    """§2: 2, 3 or 4 players (``invalid_players``)."""
    with pytest.raises(BadSetup) as info:
        new(PACK, players=players)
    assert info.value.code == "invalid_players"
    PROVOKED.add("invalid_players")


@pytest.mark.parametrize(
    ("players", "options"),
    [(2, {"dealer": 2}), (3, {"start_scores": (0, 0)}), (2, {"start_scores": (7, 0)}), (2, {"target": 3, "start_scores": (0, 3)})],
)
def test_options_out_of_range_are_invalid(players: int, options: dict[str, Any]):
    """§3: a dealer that is no seat, or start scores of the wrong length or not below the target."""
    with pytest.raises(BadSetup) as info:
        new(PACK, players=players, **options)
    assert info.value.code == "invalid_option"
    PROVOKED.add("invalid_option")


@pytest.mark.parametrize("raw", [{"follow_rule": "trump"}, {"game_tie": "dealer"}, {"colour": 1}, {"target": 0},
                                 {"start_scores": [1]}, {"start_scores": [1, "2"]}, {"blind_partners": 1}])
def test_unknown_or_ill_typed_options_are_invalid(raw: dict[str, Any]):
    """§3: unknown options, wrong types and out-of-range values are ``invalid_option``."""
    with pytest.raises(BadSetup) as info:
        CODEC.load_options(raw)
    assert info.value.code == "invalid_option"


def test_start_scores_set_the_scores():
    """§3 ``start_scores``: the match starts from these party scores."""
    assert new(PACK, players=3, start_scores=(1, 2, 3)).scores == (1, 2, 3)
    assert new(PACK, players=4).scores == (0, 0)


# --- §7.1 points scored at once ---------------------------------------------------------------


def test_turned_jack_scores_for_the_dealer_at_once():
    """§4 step 5: a jack turned up scores 1 for the dealer (event ``turned_jack``)."""
    s = new(deck_for(["AC 5C 3S 10S KD 6H", "2C KS 10D 4D 9S QH"], "JC"))
    assert s.scores == (1, 0)
    assert s.hand_events == (S.HandEvent("turned_jack", 0, 1, c("JC")),)
    events = S.initial_events(s)
    assert [e["type"] for e in events] == ["deal_started", "turned_jack"]


def test_turned_jack_scores_for_the_dealers_partnership():
    """§7.1 with 4 players the dealer's party scores: dealer 1 → party 1."""
    s = new(deck_for(["2C 3C 4C 5C 6C 7C", "2D 3D 4D 5D 6D 7D", "2H 3H 4H 5H 6H 7H", "2S 3S 4S 5S 6S 7S"], "JD", dealer=1),
            players=4, dealer=1)
    assert s.scores == (0, 1)


def test_turned_jack_can_end_the_game_at_the_deal():
    """§7.4: the game ends the moment a party reaches the target, even at the deal."""
    s = new(deck_for(["AC 5C 3S 10S KD 6H", "2C KS 10D 4D 9S QH"], "JC"), start_scores=(6, 0))
    assert (s.phase, s.winner, s.scores) == (Phase.GAME_OVER, 0, (7, 0))
    assert S.legal_moves(s) == [] and S.outcome(s) is not None
    assert S.initial_events(s)[-1] == {"type": "game_over", "winner": [0], "party": 0}
    refuse(s, Stand(1), "game_over")


def test_target_option_changes_when_the_game_ends():
    """§3 ``target``: with target 1 the turned jack alone wins; with 7 play goes on."""
    deck = deck_for(["AC 5C 3S 10S KD 6H", "2C KS 10D 4D 9S QH"], "JC")
    assert new(deck, target=1).phase is Phase.GAME_OVER
    assert new(deck).phase is Phase.STAND_OR_BEG


# --- §6.1, §6.2 trump-making --------------------------------------------------------------------

EX2 = ("AS 9H 3C KD 8S 4H 10H 2D QC 6S JH 5D 7S KH 3D 8C 4S AH 7D JS QH 6C 2H AD 9C 10S JD 2S 3S 5S 9S QS "
       "KS 3H 5H 6H 7H 8H 4D 6D 8D 9D 10D QD 2C 4C 5C 7C 10C JC KC AC")


def test_stand_fixes_the_first_suit_and_eldest_leads():
    """§6.1 stand: trump = first suit, phase play, the eldest leads."""
    s = run(new(cs(EX2)), Stand(1))
    assert (s.trump, s.phase, s.to_move, s.trick_leader, s.begged) == (Suit.S, Phase.PLAY, (1,), 1, False)


def test_beg_passes_the_decision_to_the_dealer():
    """§6.1 beg: phase give_or_run, the dealer to move with give or run."""
    s = run(new(cs(EX2)), Beg(1))
    assert (s.phase, s.to_move, s.begged) == (Phase.GIVE_OR_RUN, (0,), True)
    assert legal(s) == {Give(0), Run(0)}
    refuse(s, Beg(1), "wrong_phase")


def test_only_the_eldest_begs_and_only_the_dealer_answers_three_handed():
    """§9.15: with 3 players the third seat has no trump-making move."""
    s = new(PACK, players=3)
    assert legal(s) == {Stand(1), Beg(1)}
    refuse(s, Stand(2), "not_your_turn")
    s = run(s, Beg(1))
    assert legal(s) == {Give(0), Run(0)}
    refuse(s, Give(2), "not_your_turn")


def test_give_scores_one_for_the_eldest_and_play_begins():
    """§6.2 give: the eldest's party scores 1, trump = first suit, the eldest leads."""
    s = run(new(cs(EX2)), Beg(1))
    s, events = S.step(s, Give(0))
    assert s.scores == (0, 1) and s.trump is Suit.S and s.to_move == (1,)
    assert [e["type"] for e in events] == ["give", "gift"]


def test_give_in_partnership_scores_for_the_eldests_party():
    """§6.2: four-handed, the gift goes to the dealer's opponents (eldest's party)."""
    s = run(new(PACK, players=4, dealer=1), Beg(2), Give(1))
    assert s.scores == (1, 0)


def test_gift_can_end_the_game():
    """§9.6: the gift is scored at once and can reach the target (default gift_can_win)."""
    s = run(new(cs(EX2), start_scores=(0, 6)), Beg(1), Give(0))
    assert (s.phase, s.winner, s.scores) == (Phase.GAME_OVER, 1, (0, 7))


def test_gift_can_win_false_refuses_the_winning_gift():
    """§3 ``gift_can_win = false``: the dealer must run when the gift would reach the target."""
    s = run(new(cs(EX2), start_scores=(0, 6), gift_can_win=False), Beg(1))
    assert legal(s) == {Run(0)}
    refuse(s, Give(0), "gift_not_allowed")
    t = run(new(cs(EX2), start_scores=(0, 5), gift_can_win=False), Beg(1))
    assert legal(t) == {Give(0), Run(0)}


def test_gift_to_all_opponents_three_handed():
    """§3 ``gift_to_all_opponents``: with 3 players each non-dealer scores 1, eldest first."""
    s, events = S.step(run(new(PACK, players=3, gift_to_all_opponents=True), Beg(1)), Give(0))
    assert s.scores == (0, 1, 1)
    assert [(e["type"], e["player"]) for e in events] == [("give", 0), ("gift", 1), ("gift", 2)]
    assert run(new(PACK, players=3), Beg(1), Give(0)).scores == (0, 1, 0)


def test_gift_to_all_opponents_stops_at_the_first_to_reach_the_target():
    """§6.2: recipients score in order eldest first; the first to reach the target wins at once."""
    s = run(new(PACK, players=3, gift_to_all_opponents=True, start_scores=(0, 6, 6)), Beg(1), Give(0))
    assert (s.winner, s.scores) == (1, (0, 7, 6))


def test_gift_to_all_opponents_only_matters_three_handed():
    """§3: with 2 players the option changes nothing."""
    assert run(new(PACK, gift_to_all_opponents=True), Beg(1), Give(0)).scores == (0, 1)


def test_run_deals_a_packet_each_and_turns_until_a_new_suit():
    """§4 running: set aside, 3 more cards each, a new turn-up; a same-suit turn-up repeats."""
    s = run(new(cs(EX2)), Beg(1), Run(0))
    assert s.set_aside == cs("7S JS") and s.turnup == c("JD") and s.runs == 2 and len(s.stock) == 25
    assert all(len(h) == 12 for h in s.hands)


def test_jack_of_the_first_suit_turned_while_running_scores_nothing():
    """§4 step 5: a jack of the first suit is set aside without a point; a new-suit jack scores."""
    s, events = S.step(run(new(cs(EX2)), Beg(1)), Run(0))
    assert s.scores == (1, 0)  # JD only, not JS
    assert [e["type"] for e in events] == ["run", "cards_run", "cards_run", "trump_fixed", "turned_jack"]


def test_first_turned_jack_stands_after_running():
    """§9.9: the dealer keeps the point of a first turned jack even when the suit is run away."""
    s = new(deck_for(["2C 3C 4C 5C 6C 7C", "2D 3D 4D 5D 6D 7D"], "JS", stock="8C 9C 10C 8D 9D 10D QH"))
    assert s.scores == (1, 0)
    s = run(s, Beg(1), Run(0))
    assert s.trump is Suit.H and s.scores == (1, 0)


def test_run_jack_can_end_the_game():
    """§4 step 5: a new-suit jack that reaches the target ends the game at once."""
    s = run(new(cs(EX2), start_scores=(6, 0)), Beg(1), Run(0))
    assert (s.phase, s.winner) == (Phase.GAME_OVER, 0)


def test_no_second_beg_after_running():
    """§6.2: after a run the trump stands; nobody begs again."""
    s = run(new(cs(EX2), discard_after_run=False), Beg(1), Run(0))
    assert s.phase is Phase.PLAY
    refuse(s, Beg(1), "wrong_phase")


def test_two_players_run_at_most_five_times_then_void():
    """§4: with 2 players at most 5 runs (39 → 32 → … → 4); then the deal is void."""
    spades = list(cs("2S 3S 4S 5S 6S 7S"))
    others = [x for x in PACK if x not in spades]
    deck = []
    for i in range(52):
        deck.append(spades.pop(0) if i in (12, 19, 26, 33, 40, 47) else others.pop(0))
    s = new(deck)
    s, events = S.step(run(s, Beg(1)), Run(0))
    assert (s.phase, s.redeal, s.dealer, s.to_move, s.runs) == (Phase.DEAL_OVER, True, 0, (0,), 5)
    assert len(s.stock) == 4 and s.set_aside == cs("2S 3S 4S 5S 6S 7S") and s.turnup is None
    assert events[-1] == {"type": "deal_void", "dealer": 0, "set_aside": c("7S")}
    assert S.status(s) == "deal_over" and legal(s) == {NextDeal(0, pack=PACK)}
    s = run(s, NextDeal(0, tuple(PACK)))
    assert (s.deal_number, s.dealer, s.redeal, s.set_aside, s.runs) == (2, 0, False, (), 0)


def test_void_deal_keeps_points_already_scored():
    """§9.10: a turned jack scored before the pack ran out stands."""
    spades = list(cs("JS 3S 4S 5S 6S 7S"))
    others = [x for x in PACK if x not in spades]
    deck = [spades.pop(0) if i in (12, 19, 26, 33, 40, 47) else others.pop(0) for i in range(52)]
    s = run(new(deck), Beg(1), Run(0))
    assert s.redeal and s.scores == (1, 0)


def test_discard_after_run_false_plays_every_card():
    """§3 ``discard_after_run = false``: no discarding; 12 cards each, 12 tricks."""
    s = run(new(cs(EX2), discard_after_run=False), Beg(1), Run(0))
    assert s.phase is Phase.PLAY and all(len(h) == 12 for h in s.hands)
    n = 0
    while s.phase is Phase.PLAY:
        s = S.apply(s, S.legal_moves(s)[0])
        n += 1
    assert n == 24 and len(s.tricks) == 12 and s.last_hand is not None


# --- §6.3 discarding --------------------------------------------------------------------------


def _after_run(**options: Any) -> State:
    return run(new(cs(EX2), **options), Beg(1), Run(0))


def test_discard_template_lists_the_count_for_every_seat():
    """§6.3: one template per seat yet to discard, ``count = len(hand) - 6``, wire form with count."""
    s = _after_run()
    listed = S.legal_moves(s)
    assert to_wire(listed) == [{"type": "discard", "player": 1, "count": 6}, {"type": "discard", "player": 0, "count": 6}]
    assert is_listed(Discard(0, cs("KD 8S 4H 6S 4S 7D")), listed)
    assert not is_listed(Discard(0, cs("KD 8S 4H 6S 4S")), listed)


def test_discard_leaves_exactly_six_and_keeps_discards_out_of_play():
    """§6.3: the discards go face down, out of play; when all have discarded the eldest leads."""
    s = run(_after_run(), Discard(1, cs("3C QC KH 8C 6C 2H")), Discard(0, cs("KD 8S 4H 6S 4S 7D")))
    assert s.phase is Phase.PLAY and s.to_move == (1,) and all(len(h) == 6 for h in s.hands)
    assert s.discards == (cs("KD 8S 4H 6S 4S 7D"), cs("3C QC KH 8C 6C 2H"))


def test_discard_errors_in_spec_order():
    """§8: duplicate_card, then card_not_in_hand, then wrong_discard_count."""
    s = _after_run()
    refuse(s, Discard(1, cs("3C 3C 7S")), "duplicate_card")
    refuse(s, Discard(1, cs("3C 7S")), "card_not_in_hand")
    refuse(s, Discard(1, cs("3C")), "wrong_discard_count")
    refuse(s, parse({"type": "discard", "player": 1, "cards": ["3C", "ZZ"]}), "invalid_card")


def test_discard_template_itself_is_not_a_move():
    """§6.3: a discard must name its cards (a template sent back is ``invalid_move``)."""
    s = _after_run()
    with pytest.raises(IllegalMove) as info:  # the template equals its listing, so only apply is asked
        S.apply(s, Discard(1, count=6))
    assert info.value.code == "invalid_move"
    assert parse({"type": "discard", "player": 1, "count": 6}).code == "invalid_move"


def test_high_and_low_count_only_trumps_kept_after_discarding():
    """§9.2: a discarded trump is out of play: High is judged among the cards kept."""
    s = run(_after_run(), Discard(0, cs("AD KD 8S 4H 6S 4S")), Discard(1, cs("3C QC KH 8C 6C 2H")))
    # seat 0 threw AD away; the highest trump in play is then 7D (seat 0) against 2D, 3D (seat 1)
    while s.phase is Phase.PLAY:
        s = S.apply(s, S.legal_moves(s)[0])
    assert s.last_hand is not None
    high, low = s.last_hand.awards[:2]
    assert (high.card, high.seat) == (c("7D"), 0)
    assert (low.card, low.seat) == (c("2D"), 1)


# --- §6.5 following and winning tricks --------------------------------------------------------

# Seat 0 (dealer) and seat 1 (eldest); trump C (turn-up 7C).
HANDS = ["AH 2H 3C 4D 5D 6D", "KH QC 9D 8D 7S 6S"]


def _led(follow_rule: str, lead: str = "KH", hands: Sequence[str] = HANDS) -> State:
    s = run(new(deck_for(hands, "7C"), follow_rule=follow_rule), Stand(1))
    return S.apply(s, Play(1, c(lead)))


def test_follow_suit_must_follow_if_able():
    """§6.5 follow_suit: a seat holding the led suit must play it (``must_follow_suit``)."""
    s = _led("follow_suit")
    assert legal(s) == play_set(0, "AH 2H")
    refuse(s, Play(0, c("3C")), "must_follow_suit")


def test_follow_suit_any_card_when_void():
    """§6.5 follow_suit: void in the led suit, trump or throw anything."""
    s = _led("follow_suit", lead="7S")
    assert legal(s) == play_set(0, "AH 2H 3C 4D 5D 6D")


def test_follow_or_trump_may_trump_instead_of_following():
    """§3/§6.5 follow_or_trump: the led suit or a trump, even when able to follow."""
    s = _led("follow_or_trump")
    assert legal(s) == play_set(0, "AH 2H 3C")
    refuse(s, Play(0, c("4D")), "must_follow_suit")


def test_follow_or_trump_compulsory_must_trump_when_void():
    """§6.5 follow_or_trump_compulsory: void in the led suit with a trump → must trump (``must_trump``)."""
    s = _led("follow_or_trump_compulsory", lead="7S")
    assert legal(s) == play_set(0, "3C")
    refuse(s, Play(0, c("4D")), "must_trump")
    assert _led("follow_or_trump", lead="7S").phase is Phase.PLAY
    assert legal(_led("follow_or_trump", lead="7S")) == play_set(0, "AH 2H 3C 4D 5D 6D")


def test_follow_or_trump_compulsory_void_in_both_plays_anything():
    """§6.5: void in the led suit and in trumps, any card under every rule."""
    hands = ["AH 2H 3H 4D 5D 6D", "KH QC 9D 8D 7S 6S"]
    s = _led("follow_or_trump_compulsory", lead="7S", hands=hands)
    assert legal(s) == play_set(0, "AH 2H 3H 4D 5D 6D")


def test_trump_led_means_follow_trumps_under_every_rule():
    """§6.5: when the led suit is trump all three rules mean "follow trumps if able"."""
    hands = ["AH 2H 3C 4D 5D 6D", "KH QC 9D 8D 7S 6S"]
    for rule in S.FOLLOW_RULES:
        assert legal(_led(rule, lead="QC", hands=hands)) == play_set(0, "3C")


def test_trick_goes_to_the_highest_trump_else_the_highest_of_the_led_suit():
    """§6.5: a trump beats the led suit; otherwise the highest card of the led suit wins."""
    s = plays(_led("follow_suit", lead="7S"), "0:3C")
    assert s.tricks[-1].winner == 0 and s.to_move == (0,)
    s = plays(_led("follow_suit", lead="7S"), "0:AH")
    assert s.tricks[-1].winner == 1  # AH is off-suit: it cannot win


def test_a_won_trick_is_announced_with_its_winner_leader_and_cards():
    """§6.5 (docs/wire.md, Seven Up events): the move that completes a trick reports ``trick_won``
    with the winner as ``player``, the ``leader`` and the cards in play order."""
    s, events = S.step(_led("follow_suit", lead="7S"), Play(0, c("3C")))
    assert to_wire(events) == [
        {"type": "card_played", "player": 0, "card": "3C"},
        {"type": "trick_won", "player": 0, "leader": 1, "cards": ["7S", "3C"]},
    ]
    assert s.tricks[-1].winner == 0


def test_rank_order_ace_high_two_low():
    """§2: A K Q J 10 9 … 2 for tricks."""
    assert S.RANK["A"] > S.RANK["K"] > S.RANK["Q"] > S.RANK["J"] > S.RANK["10"] > S.RANK["9"] > S.RANK["2"]


def test_play_passes_to_the_left_and_card_must_be_held():
    """§6.4: play passes to the left; a card not in hand is ``card_not_in_hand``."""
    s = run(new(PACK, players=3), Stand(1))
    refuse(s, Play(1, s.hands[0][0]), "card_not_in_hand")
    s = S.apply(s, Play(1, s.hands[1][0]))
    assert s.to_move == (2,)
    refuse(s, Play(1, s.hands[1][0]), "not_your_turn")


# --- §7.2, §7.3 scoring -----------------------------------------------------------------------


def _example1(**options: Any) -> State:
    return plays(run(new(cs(EX1), **options), Stand(1)), EX1_PLAYS)


def test_low_goes_to_the_holder_even_if_captured():
    """§7.2, §9.1: Low 2C is seat 1's although seat 0 captured it (Example 1)."""
    s = _example1()
    assert s.last_hand is not None and s.last_hand.awards[1] == S.Award("low", c("2C"), 1, 1, True)


def test_jack_not_in_play_scores_nobody():
    """§9.4: the turned-up trump jack is not in play: no Jack point."""
    s = _example1()
    assert s.last_hand is not None and s.last_hand.awards[2] == S.Award("jack", None, None, None, False)


def test_jack_goes_to_the_winner_of_its_trick():
    """§7.2: Jack is scored by the side that wins the trick holding the trump jack."""
    s = run(new(deck_for(["AH 2H 3C 4D 5D 6D", "KH JC 9D 8D 7S 6S"], "7C")), Stand(1))
    s = plays(s, "1:JC 0:3C")
    while s.phase is Phase.PLAY:
        s = S.apply(s, S.legal_moves(s)[0])
    assert s.last_hand is not None
    assert s.last_hand.awards[2] == S.Award("jack", c("JC"), 1, 1, True)
    assert s.last_hand.awards[0].card == c("JC") and s.last_hand.awards[1].card == c("3C")


def test_no_trump_in_play_scores_no_high_no_low():
    """§9.5: without a trump in play, High and Low are not scored."""
    s = run(new(deck_for(["AH 2H 3H 4D 5D 6D", "KH QH 9D 8D 7S 6S"], "7C")), Stand(1))
    while s.phase is Phase.PLAY:
        s = S.apply(s, S.legal_moves(s)[0])
    assert s.last_hand is not None
    assert [a.party for a in s.last_hand.awards[:3]] == [None, None, None]


def test_one_trump_in_play_is_both_high_and_low():
    """§7.2: a lone trump is High and Low for its holder."""
    s = run(new(deck_for(["AH 2H 3H 4D 5D 6D", "KH QH 9D 8D 7S 5C"], "7C")), Stand(1))
    while s.phase is Phase.PLAY:
        s = S.apply(s, S.legal_moves(s)[0])
    assert s.last_hand is not None
    high, low = s.last_hand.awards[:2]
    assert (high.card, high.party, low.card, low.party) == (c("5C"), 1, c("5C"), 1)


def _tied_game(**options: Any) -> State:
    # Seat 1 leads each diamond and spade; seat 0 wins the heart ace trick: 10 + 4 … tie 14 : 14.
    hands = ["AH 10H 2S 3S 4S 5S", "2H 3H AS 10S 6D 7D"]
    s = run(new(deck_for(hands, "8C"), **options), Stand(1))
    return plays(s, "1:2H 0:AH 0:10H 1:3H 0:2S 1:AS 1:10S 0:3S 1:6D 0:4S 1:7D 0:5S")


def test_game_tie_none_nobody_scores_game():
    """§7.2, §9.3 ``game_tie = none``: a tie for the most Game value scores nobody."""
    s = _tied_game()
    assert s.last_hand is not None and s.last_hand.game_totals == (14, 14)
    assert s.last_hand.awards[3].party is None


def test_game_tie_eldest_gives_it_to_the_elder_hand():
    """§3 ``game_tie = eldest``: the tied party first from the eldest scores Game."""
    s = _tied_game(game_tie="eldest")
    assert s.last_hand is not None and s.last_hand.awards[3] == S.Award("game", None, None, 1, True)


def test_game_with_all_totals_zero_scores_nobody():
    """§7.2: all Game totals 0 → nobody, under every tie rule."""
    hands = ["2H 3H 4H 5H 6H 7H", "8H 9H 2S 3S 4S 5S"]
    s = run(new(deck_for(hands, "2C"), game_tie="eldest"), Stand(1))
    while s.phase is Phase.PLAY:
        s = S.apply(s, S.legal_moves(s)[0])
    assert s.last_hand is not None and s.last_hand.game_totals == (0, 0) and s.last_hand.awards[3].party is None


def test_counting_out_credits_in_order_and_stops_at_the_target():
    """§7.3: High, Low, Jack, Game one at a time; the first party to reach the target wins (Example 6 has Low first)."""
    deck = list(cs(EX1))
    deck[12], deck[46] = deck[46], deck[12]  # turn-up 7C, JC into the stock
    t = plays(run(new(deck, start_scores=(6, 6)), Stand(1)), EX1_PLAYS)
    assert (t.winner, t.scores) == (0, (7, 6))  # High (party 0) comes before Low (party 1)
    assert t.last_hand is not None and [a.credited for a in t.last_hand.awards] == [True, False, False, False]


def test_dealer_passes_left_after_a_hand():
    """§7.4: after a completed hand the next dealer is on the left, waiting in deal_over."""
    s = _example1()
    assert (s.phase, s.dealer, s.eldest, s.to_move) == (Phase.DEAL_OVER, 1, 0, (1,))
    refuse(s, NextDeal(0, tuple(PACK)), "not_your_turn")
    refuse(s, Stand(0), "wrong_phase")
    refuse(s, NextDeal(1, tuple(PACK[:-1])), "invalid_deck")
    t = run(s, NextDeal(1, tuple(PACK)))
    assert (t.deal_number, t.dealer, t.eldest, t.to_move, t.tricks, t.hand_events) == (2, 1, 0, (0,), (), ())
    assert t.last_hand == s.last_hand


def test_four_handed_partners_share_the_score():
    """§2: with 4 players the envelope totals show each seat its party's score."""
    s = run(new(PACK, players=4), Beg(1), Give(0))  # eldest 1: party 1 (seats 1 and 3) scores
    assert S.scores(s)["totals"] == [0, 1, 0, 1] and S.scores(s)["parties"] == [0, 1]


def test_winner_is_the_winning_partys_seats():
    """§7.4: ``winner`` = [w, w+2] with four players."""
    s = run(new(PACK, players=4, start_scores=(0, 6)), Beg(1), Give(0))
    assert S.outcome(s) is not None and S.outcome(s).winners == frozenset({1, 3})  # type: ignore[union-attr]


# --- §5 views ---------------------------------------------------------------------------------

EX5 = ("AH 3S KS 2H QS 4C JH 5S AC 10H 7S KC 10C 5D 9D 7C 10D 6S 8C 2D 3D QD 4D 9S 8H 2S 4S 8S 10S JS AS "
       "3H 4H 5H 6H 7H 9H QH KH 6D 7D 8D JD KD AD 2C 3C 5C 6C 9C JC QC")


def test_views_show_only_the_viewers_own_hand_and_discards():
    """§5: other seats' hands and discards are null (with counts); the stock is a count."""
    s = run(_after_run(), Discard(0, cs("KD 8S 4H 6S 4S 7D")))
    v = to_wire(S.view(s, 0))
    assert v["hands"][0] == [str(x) for x in s.hands[0]] and v["hands"][1] is None
    assert v["discards"] == [["KD", "8S", "4H", "6S", "4S", "7D"], None] and v["discard_counts"] == [6, 0]
    assert v["hand_counts"] == [6, 12] and v["stock_count"] == 25 and "stock" not in v and "seed" not in v
    public = to_wire(S.view(s, None))
    assert public["hands"] == [None, None] and public["discards"] == [None, None] and "legal_moves" not in public
    assert to_wire(S.view(s, 1))["legal_moves"] == [{"type": "discard", "player": 1, "count": 6}]


def test_blind_partners_see_their_hands_only_after_trump_is_fixed():
    """§5 four-handed blind rule (Example 5): the dealer's partner and the pone see null until stand."""
    s = new(cs(EX5), players=4)
    for seat in (2, 3):
        v = to_wire(S.view(s, seat))
        assert v["hands"] == [None, None, None, None] and v["hand_counts"] == [6, 6, 6, 6]
        assert not (S.visible_cards(s, seat) & set(s.hands[seat]))
    for seat in (0, 1):
        assert to_wire(S.view(s, seat))["hands"][seat] is not None
    s = run(s, Stand(1))
    assert to_wire(S.view(s, 2))["hands"][2] == ["2H", "QS", "4C", "7C", "10D", "6S"]
    assert to_wire(S.view(s, 3))["hands"][3] == ["JH", "5S", "AC", "8C", "2D", "3D"]


def test_blind_seats_follow_the_dealer():
    """§5 four-handed blind rule: the blind seats are ``(d+2)%4`` and ``(d+3)%4`` for any dealer
    ``d`` (dealer 1: seats 3 and 0), not fixed seats."""
    s = new(PACK, players=4, dealer=1)
    for seat in (3, 0):
        assert to_wire(S.view(s, seat))["hands"][seat] is None
    for seat in (1, 2):
        assert to_wire(S.view(s, seat))["hands"][seat] is not None


def test_a_view_lists_moves_only_for_a_seat_to_move():
    """§6, docs/wire.md (Seven Up state): ``legal_moves`` appears in the view of a seat to move, and
    only there; a seat waiting for its turn gets no list at all (not an empty one)."""
    s = new(cs(EX1))
    assert s.to_move == (1,)
    assert to_wire(S.view(s, 1))["legal_moves"] == [{"type": "stand", "player": 1}, {"type": "beg", "player": 1}]
    assert "legal_moves" not in S.view(s, 0)


def test_blind_partners_stay_blind_while_begging_and_see_after_a_run():
    """§5: still blind in give_or_run; a run that fixes a new suit lifts it (they got packets too)."""
    s = run(new(cs(EX5), players=4), Beg(1))
    assert to_wire(S.view(s, 2))["hands"][2] is None
    s = run(s, Run(0))  # 8H, QH set aside (hearts again); JC turned: clubs
    assert s.trump is Suit.C and s.phase is Phase.DISCARD
    assert to_wire(S.view(s, 2))["hands"][2] == [str(x) for x in s.hands[2]] and len(s.hands[2]) == 12


def test_blind_partners_option_off_everyone_sees_at_once():
    """§3 ``blind_partners = false``: every seat sees its own hand from the deal."""
    s = new(cs(EX5), players=4, blind_partners=False)
    assert to_wire(S.view(s, 3))["hands"][3] == ["JH", "5S", "AC", "8C", "2D", "3D"]


def test_blind_rule_is_only_four_handed():
    """§5: with 2 or 3 players nobody is blind."""
    s = new(PACK, players=3)
    assert all(to_wire(S.view(s, seat))["hands"][seat] is not None for seat in range(3))


# --- §8 errors --------------------------------------------------------------------------------


def test_parse_errors_come_before_phase_and_turn():
    """§8 order: invalid_move, unknown_move_type, invalid_player before wrong_phase and not_your_turn."""
    s = new(cs(EX1))
    refuse(s, parse({"type": 3, "player": 0}), "invalid_move")
    refuse(s, parse({"type": "stand"}), "invalid_player")
    refuse(s, parse({"type": "pass", "player": 9}), "unknown_move_type")
    refuse(s, parse({"type": "play", "player": 4, "card": "AS"}), "invalid_player")
    refuse(s, parse({"type": "play", "player": 1, "card": "AS", "x": 1}), "invalid_move")


def test_invalid_card_comes_after_phase_and_turn():
    """§8 order: wrong_phase and not_your_turn before invalid_card."""
    s = new(cs(EX1))
    refuse(s, parse({"type": "play", "player": 1, "card": "1Z"}), "wrong_phase")
    s = run(s, Stand(1))
    refuse(s, parse({"type": "play", "player": 0, "card": "1Z"}), "not_your_turn")
    refuse(s, parse({"type": "play", "player": 1, "card": "1Z"}), "invalid_card")


def test_invalid_deck_in_next_deal():
    """§8 invalid_deck: a next_deal deck that is not the 52-card pack."""
    s = _example1()
    refuse(s, parse({"type": "next_deal", "player": 1, "deck": [str(x) for x in PACK[:51]]}), "invalid_deck")


SECTION_8: Final = set(section_8("seven_up"))  # §8's table (tests/codes.py)


def _refusal_cases() -> list[tuple[State, Any]]:
    """One refused (state, move) per §8 code, from the positions used above."""
    start = new(cs(EX1))
    over = new(deck_for(["AC 5C 3S 10S KD 6H", "2C KS 10D 4D 9S QH"], "JC"), start_scores=(6, 0))
    discarding = _after_run()
    stood = run(start, Stand(1))
    return [
        (over, Stand(1)),
        (start, parse({"type": "stand", "player": 1, "colour": "red"})),
        (start, parse({"type": "pass", "player": 1})),
        (start, parse({"type": "stand", "player": 2})),
        (start, Run(0)),
        (start, Stand(0)),
        (stood, parse({"type": "play", "player": 1, "card": "11S"})),
        (_example1(), parse({"type": "next_deal", "player": 1, "deck": ["AS"] * 52})),
        (discarding, Discard(0, cs("KD KD 8S 4H 6S 4S"))),
        (stood, Play(1, c("AC"))),
        (discarding, Discard(0, cs("KD 8S"))),
        (S.apply(stood, Play(1, c("KS"))), Play(0, c("AC"))),
        (_led("follow_or_trump_compulsory", lead="7S"), Play(0, c("AH"))),
        (run(new(cs(EX2), start_scores=(0, 6), gift_can_win=False), Beg(1)), Give(0)),
    ]


def test_every_section_8_code_is_provoked():
    """§8: every code of the table is provoked (and creation errors by the tests above)."""
    codes = {refuse(state, move, code) for (state, move), code in zip(_refusal_cases(), [
        "game_over", "invalid_move", "unknown_move_type", "invalid_player", "wrong_phase", "not_your_turn",
        "invalid_card", "invalid_deck", "duplicate_card", "card_not_in_hand", "wrong_discard_count",
        "must_follow_suit", "must_trump", "gift_not_allowed",
    ], strict=True)}
    assert codes == SECTION_8


# --- §5 state consistency ---------------------------------------------------------------------


def test_states_round_trip_and_check():
    """§5: a state survives the wire form and passes check_state."""
    s = run(_after_run(), Discard(0, cs("KD 8S 4H 6S 4S 7D")))
    assert CODEC.load_state(CODEC.dump_state(s)) == s


@pytest.mark.parametrize(
    "mutate",
    [
        lambda s: s._replace(to_move=(0,)),
        lambda s: s._replace(eldest=0),
        lambda s: s._replace(scores=(7, 0)),
        lambda s: s._replace(hands=(s.hands[0], s.hands[1][:-1])),
        lambda s: s._replace(trump=Suit.H),
        lambda s: s._replace(players=3),
        lambda s: s._replace(runs=1),
        lambda s: s._replace(options=dataclasses.replace(s.options, dealer=3)),
    ],
)
def test_inconsistent_states_are_refused(mutate: Any):
    """conventions.md: a state that could not arise in play is ``invalid_state``."""
    s = new(cs(EX1))
    S.check_state(s)
    with pytest.raises(InvalidState):
        S.check_state(mutate(s))


def _refused_at(state: State, path: str) -> None:
    with pytest.raises(InvalidState) as info:
        S.check_state(state)
    assert path in info.value.errors, info.value.errors


def test_deal_number_counts_from_one():
    """§5 ``deal_number``: 1, 2, …; a state with deal 0 is refused."""
    _refused_at(new(cs(EX1))._replace(deal_number=0), "deal_number")


def test_a_state_holding_a_card_twice_is_refused():
    """§2, conventions.md: a state holds the 52-card pack exactly once; a 53rd card (a duplicate)
    is refused even where no count would notice it (the stock between deals)."""
    s = _example1()
    assert s.phase is Phase.DEAL_OVER
    _refused_at(s._replace(stock=s.stock + (c("AC"),)), "hands")


def test_game_over_needs_a_winner_at_the_target():
    """§7.4: the game ends when a party reaches ``target``; a game_over state whose winner is
    below it is refused."""
    s = new(deck_for(["AC 5C 3S 10S KD 6H", "2C KS 10D 4D 9S QH"], "JC"), start_scores=(6, 0))
    assert s.phase is Phase.GAME_OVER and s.winner == 0
    S.check_state(s)
    _refused_at(s._replace(scores=(5, 0)), "winner")


def test_between_deals_the_next_dealer_is_to_move():
    """§4 Next deal, §6.6: in ``deal_over`` only the dealer of the coming deal moves (next_deal)."""
    s = _example1()
    assert s.to_move == (s.dealer,)
    _refused_at(s._replace(to_move=((s.dealer + 1) % 2,)), "to_move")


def test_cards_are_run_only_after_a_beg():
    """§6.2: running follows a beg, so a state with runs and ``begged`` false is refused."""
    s = _after_run()
    assert s.runs > 0 and s.begged
    _refused_at(s._replace(begged=False), "runs")


def test_every_set_aside_turn_up_is_of_the_first_suit():
    """§4 running: a turn-up is set aside only while it keeps the first suit, so every set-aside
    card (the second as well as the first) is of ``first_suit``."""
    s = _after_run()
    assert len(s.set_aside) == 2 and all(x.suit is s.first_suit for x in s.set_aside)
    other = next(x for x in s.stock if x.suit is not s.first_suit)
    swapped = s._replace(
        set_aside=(s.set_aside[0], other),
        stock=tuple(s.set_aside[1] if x == other else x for x in s.stock),
    )
    _refused_at(swapped, "set_aside")


def test_no_trick_leader_before_trump_is_fixed():
    """§5, §6.1: ``trick_leader`` is null until play begins."""
    _refused_at(new(cs(EX1))._replace(trick_leader=1), "trick_leader")


def test_nothing_is_played_while_discarding():
    """§6.3: play begins only when every seat has discarded: no trick leader yet."""
    _refused_at(_after_run()._replace(trick_leader=1), "trick")


def test_each_trick_is_led_by_the_previous_winner():
    """§6.4, §6.5: the eldest leads the first trick, each winner the next; a trick recorded with
    another leader is refused."""
    s = plays(_led("follow_suit", lead="7S"), "0:3C")  # seat 1 led, seat 0 won
    t = s.tricks[0]
    assert (t.leader, t.winner) == (1, 0)
    _refused_at(s._replace(tricks=(t._replace(leader=0),)), "tricks.0")


def test_dump_state_is_the_generic_wire_form():
    """§5: the hand-written ``dump_state`` equals ``to_wire`` of every state field, in every phase."""
    from tests.playouts import random_playout

    phases = set()
    for players, seed, options in ((2, 3, Options()), (3, 5, Options(discard_after_run=False)), (4, 8, Options(target=3))):
        for _, _, state in random_playout(S, players, seed, options):
            generic = {"game": S.GAME_ID, "rules_version": S.RULES_VERSION}
            generic.update({name: to_wire(value) for name, value in zip(state._fields, state)})
            assert CODEC.dump_state(state) == generic
            phases.add(state.phase)
    assert phases >= {Phase.PLAY, Phase.DEAL_OVER, Phase.GAME_OVER, Phase.GIVE_OR_RUN}


def test_cards_and_records_copy_as_themselves():
    """Shared machinery: cards are interned immutable values, so a (deep) copy is the card itself."""
    assert copy.deepcopy(c("AS")) is c("AS") and copy.copy(c("10H")) is c("10H")
    s = _example1()
    assert copy.deepcopy(s) == s and copy.deepcopy(s).hands is not None
