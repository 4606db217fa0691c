"""The deal algorithm of a sealed match (docs/fair-play.md), pinned: golden decks, the commitment,
and an independent re-implementation written straight from docs/fair-play.md's words."""

from __future__ import annotations

import hashlib
import hmac

import pytest

from service.cards.shuffle import KEYED_ALGORITHM, keyed_shuffle, secret_deal_deck
from service.engines import ENGINES, schnapsen, slapjack
from service.fairness import commitment, commitment_holds, fairness

SECRET = bytes(range(32))  # 000102…1f, docs/fair-play.md's worked example


def readme_deal(pack: list[str], secret: bytes, k: int) -> list[str]:
    """Fisher–Yates over the pack in canonical order; for i from n-1 down to 1, j = first 8 bytes
    (big-endian) of HMAC-SHA256(key=secret, message="deal:"+k+":"+i) mod (i+1); swap."""
    deck = list(pack)
    for i in range(len(deck) - 1, 0, -1):
        digest = hmac.new(secret, f"deal:{k}:{i}".encode(), hashlib.sha256).digest()
        j = int.from_bytes(digest[:8], "big") % (i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def test_golden_schnapsen_deals() -> None:
    pack = schnapsen.pack(schnapsen.Options(), 2)
    assert [str(c) for c in secret_deal_deck(pack, SECRET, 1)] == [
        "AC", "10D", "QH", "KC", "JS", "AD", "10S", "KD", "AH", "AS", "KH", "QC", "KS", "10C", "10H", "JH", "JD", "JC", "QD", "QS"]
    assert [str(c) for c in secret_deal_deck(pack, SECRET, 2)] == [
        "QC", "AC", "10D", "JC", "AD", "JS", "10H", "QS", "AH", "QH", "KC", "JD", "10S", "KD", "KH", "KS", "JH", "AS", "QD", "10C"]


def test_golden_52_card_deal() -> None:
    deck = " ".join(str(c) for c in secret_deal_deck(slapjack.PACK, SECRET, 1))
    assert deck == ("8D AD 8S 6H 2S KC 10D 5C JS 6S 3D KH 2C 9H 9D QD 7C 6C KS 10C 7H AC QH 5S KD JH 8C 10H 5D AH "
                    "3C 2D 8H 10S 4D 3S JC 6D 7D 4S 5H QC 4C 9C QS 2H 4H JD 7S AS 3H 9S")


def test_first_step_of_the_worked_example() -> None:
    digest = hmac.new(SECRET, b"deal:1:19", hashlib.sha256).digest()
    assert digest[:8].hex() == "6a0e4bb5b6ea04b9" and int.from_bytes(digest[:8], "big") % 20 == 1


@pytest.mark.parametrize("game", sorted(ENGINES))
@pytest.mark.parametrize("k", [1, 2, 7])
def test_every_pack_matches_the_readme_words(game: str, k: int) -> None:
    engine = ENGINES[game]
    pack = engine.pack(engine.Options(), engine.DEFAULT_PLAYERS)
    secret = hashlib.sha256(f"{game}:{k}".encode()).digest()
    assert [str(c) for c in secret_deal_deck(pack, secret, k)] == readme_deal([str(c) for c in pack], secret, k)


def test_slapjack_shuffle_message() -> None:
    stock = [str(c) for c in slapjack.PACK[:10]]
    expected = list(stock)
    for i in range(9, 0, -1):
        j = int.from_bytes(hmac.new(SECRET, f"slapjack:3:{i}".encode(), hashlib.sha256).digest()[:8], "big") % (i + 1)
        expected[i], expected[j] = expected[j], expected[i]
    assert list(keyed_shuffle(stock, SECRET, "slapjack", 3)) == expected


def test_commitment() -> None:
    assert commitment(SECRET, "match-1") == hashlib.sha256(SECRET + b"match-1").hexdigest()
    assert commitment(SECRET, "match-1") == "b11c6d6c39244c86356aca562f39382d8d789cfe22ea58dbf3afac3418d85057"
    assert commitment_holds(SECRET.hex(), "match-1", commitment(SECRET, "match-1"))
    assert not commitment_holds(SECRET.hex(), "match-2", commitment(SECRET, "match-1"))
    assert not commitment_holds("zz", "match-1", commitment(SECRET, "match-1"))
    assert fairness(SECRET, "m", False) == {"algorithm": KEYED_ALGORITHM, "commitment": commitment(SECRET, "m")}
    assert fairness(SECRET, "m", True)["secret"] == SECRET.hex()


def test_deals_differ_by_deal_number_and_secret() -> None:
    pack = slapjack.PACK
    assert secret_deal_deck(pack, SECRET, 1) != secret_deal_deck(pack, SECRET, 2)
    assert secret_deal_deck(pack, SECRET, 1) != secret_deal_deck(pack, bytes(32), 1)
    with pytest.raises(ValueError):
        secret_deal_deck(pack, SECRET, 0)
