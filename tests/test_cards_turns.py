"""service/cards/turns.py: dealing round by round, drawing in turn, partnership sides."""

from __future__ import annotations

from service.cards import Card
from service.cards.packs import full_52
from service.cards.turns import deal_one_at_a_time, draw_in_turn, partnership_sides


def cs(text: str) -> tuple[Card, ...]:
    return tuple(Card.parse(t) for t in text.split())


def test_deal_one_at_a_time_from_the_first_seat():
    """Seat (first + i) % n gets deck[i], deck[i + n], …; the rest keeps its order."""
    deck = full_52()
    hands, rest = deal_one_at_a_time(deck, 3, 1, 2)
    assert hands[1] == (deck[0], deck[3]) and hands[2] == (deck[1], deck[4]) and hands[0] == (deck[2], deck[5])
    assert rest == deck[6:]


def test_draw_in_turn_from_the_first_seat_while_the_stock_lasts():
    """Draws go to first, first + 1, … (mod n); a short stock serves the first seats only."""
    hands = (cs("2S"), cs("3S"), cs("4S"))
    new, stock, draws = draw_in_turn(hands, cs("AH KH QH JH"), 2)
    assert new == (cs("2S KH"), cs("3S QH"), cs("4S AH")) and stock == cs("JH")
    assert draws == ((2, Card.parse("AH")), (0, Card.parse("KH")), (1, Card.parse("QH")))
    new, stock, draws = draw_in_turn(hands, cs("AH"), 1)
    assert new == (cs("2S"), cs("3S AH"), cs("4S")) and stock == () and len(draws) == 1
    assert draw_in_turn(hands, (), 0) == (hands, (), ())


def test_partnership_sides():
    """Four partnered players: 0 & 2 against 1 & 3; otherwise one side per seat."""
    assert partnership_sides(4) == (0, 1, 0, 1)
    assert partnership_sides(4, partnerships=False) == (0, 1, 2, 3)
    assert partnership_sides(2) == (0, 1) and partnership_sides(3) == (0, 1, 2)
