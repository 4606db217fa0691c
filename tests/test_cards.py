"""Shared card machinery: notation, packs, the seeded shuffle (golden values), trick helpers."""

from __future__ import annotations

import hashlib

import pytest

from service.cards import BadCard, Card, Suit
from service.cards.packs import DeckProblem, check_deck, full_52, short_20
from service.cards.shuffle import deal_deck, seeded_shuffle
from service.cards.tricks import beats, higher, of_suit, points, strength, trick_winner


@pytest.mark.parametrize("text", ["10H", "QS", "AC", "2D", "QS/a", "10C/b"])
def test_card_text_round_trips(text: str) -> None:
    """docs/rules/conventions.md: one text form per card; str(Card.parse(s)) == s."""
    card = Card.parse(text)
    assert str(card) == text
    assert Card.parse(text) is card  # interned
    assert repr(card) == f"Card.parse({text!r})"


@pytest.mark.parametrize("text", ["", "1H", "10", "H10", "QX", "qs", "QS/c", " QS", 12, None])
def test_bad_card_text_is_refused(text: object) -> None:
    with pytest.raises(BadCard):
        Card.parse(text)  # type: ignore[arg-type]


def test_packs_have_the_right_cards() -> None:
    assert len(full_52()) == 52 and len(set(full_52())) == 52
    assert [str(c) for c in short_20()[:5]] == ["JS", "QS", "KS", "10S", "AS"]
    assert {c.rank for c in short_20()} == {"J", "Q", "K", "10", "A"}


def test_check_deck_names_missing_and_duplicated_cards() -> None:
    deck = list(short_20())
    deck[3] = deck[4]
    with pytest.raises(DeckProblem, match="missing 10S.*duplicated AS"):
        check_deck(deck, short_20())
    check_deck(tuple(reversed(short_20())), short_20())


def test_seeded_shuffle_follows_slapjack_check_value() -> None:
    """slapjack §6.6 check value: seed 42, count 0, i 27 → digest 27628261bc7a4d78…, j = 12."""
    digest = hashlib.sha256(b"slapjack:42:0:27").digest()
    assert digest.hex().startswith("27628261bc7a4d78")
    assert int.from_bytes(digest[:8], "big") % 28 == 12
    # our shuffle under that key: its first swap (i = 27) brings L[12] to index 27, and no later
    # swap (i < 27) touches index 27 again
    items = list(range(28))
    shuffled = seeded_shuffle(items, "slapjack", 42, 0)
    assert shuffled[27] == 12
    assert sorted(shuffled) == items


def test_seeded_deal_is_pinned() -> None:
    """Golden values: a seeded deal never changes (documented algorithm, canonical pack order)."""
    assert [str(c) for c in deal_deck(short_20(), 0)] == [
        "10C", "JH", "AD", "AH", "QD", "KS", "AC", "QC", "QS", "KH",
        "JS", "JC", "10H", "10S", "QH", "AS", "KC", "JD", "10D", "KD",
    ]
    assert [str(c) for c in deal_deck(full_52(), 7)][:10] == ["AS", "8S", "4H", "6C", "2S", "6D", "JC", "10C", "10D", "3D"]


def test_seeded_shuffle_refuses_negative_seed() -> None:
    with pytest.raises(ValueError):
        deal_deck(short_20(), -1)


def test_trick_helpers() -> None:
    rank = strength(("J", "Q", "K", "10", "A"))
    c = Card.parse
    assert trick_winner([c("KH"), c("AH"), c("JS")], Suit.S, rank) == 2
    assert trick_winner([c("KH"), c("AD")], Suit.S, rank) == 0
    assert beats(c("10H"), c("KH"), None, rank) and not beats(c("AD"), c("KH"), None, rank)
    assert of_suit([c("KH"), c("AS"), c("QH")], Suit.H) == (c("KH"), c("QH"))
    assert higher([c("KH"), c("AH"), c("JH")], c("QH"), rank) == (c("KH"), c("AH"))
    assert points([c("AH"), c("10S"), c("JD")], {"A": 11, "10": 10, "J": 2}) == 23


def test_all_fours_game_values_total_80_per_pack() -> None:
    from service.cards.all_fours import game_value
    from service.cards.packs import full_52

    assert game_value(full_52()) == 80


def test_all_fours_count_out_stops_at_the_first_party_to_reach_the_target() -> None:
    from service.cards.all_fours import count_out

    # High to party 1 (6 -> 7 wins); Low, Jack and Game are not credited.
    result = count_out([5, 6], [1, 0, 0, 0], target=7)
    assert result == ((5, 7), (True, False, False, False), 1)
    # Nobody reaches the target; a point awarded to nobody is not credited.
    result = count_out([0, 0], [0, None, 1, 0], target=7)
    assert result == ((2, 1), (True, False, True, True), None)


def test_copies_of_a_card_are_the_interned_card() -> None:
    """Cards are immutable and interned: copy and deepcopy return the card itself (cheap state snapshots)."""
    import copy

    card = Card.parse("10H")
    assert copy.copy(card) is card and copy.deepcopy(card) is card
    assert copy.deepcopy((card, [card]))[1][0] is card


def test_names_lists_cards_as_text_for_messages() -> None:
    from service.cards import Card, names

    assert names([Card.parse("AS"), Card.parse("10H")]) == "AS, 10H"
    assert names([]) == ""
