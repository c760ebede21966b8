"""Nicknames that look the same are the same name (UTS #39 skeleton, case-folded)."""

from __future__ import annotations

import pytest

from sternhalma.server.storage.nicknames import nickname_key, prototypes, skeleton


@pytest.mark.parametrize(
    "lookalike",
    [
        "Аlice",  # Cyrillic capital A
        "аlice",  # Cyrillic small a
        "ΑLICE",  # Greek capital alpha
        "Ａlice",  # full-width A
        "ALICE",
        "alice",
    ],
)
def test_lookalikes_of_alice_are_alice(lookalike: str) -> None:
    assert lookalike != "Alice"
    assert nickname_key(lookalike) == nickname_key("Alice")


def test_digits_and_letter_pairs_that_look_alike() -> None:
    assert nickname_key("B0b") == nickname_key("Bob")  # zero and O
    assert nickname_key("Tom") == nickname_key("Torn")  # m and rn (a prototype of two)


def test_different_names_stay_different() -> None:
    assert nickname_key("Alice") != nickname_key("Alicia")
    assert nickname_key("Zoë") != nickname_key("Zoe")  # a diaeresis is seen
    assert nickname_key("Zoë") == nickname_key("Zoe\u0308")  # however it is written


def test_the_mapping_is_read_in_the_direction_of_uts_39() -> None:
    table = prototypes()
    assert table["А"] == "A"  # Cyrillic A to Latin A, never the other way
    assert "A" not in table
    assert table["1"] == "l"
    assert table["m"] == "rn"
    # A prototype is never a source, so a skeleton is its own skeleton.
    assert not set(table.values()) & set(table)
    assert skeleton(skeleton("Аlice 1")) == skeleton("Аlice 1") == "Alice l"
    assert len(table) > 6000


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("Ian", "lan"),  # a capital I looks like a small L
        ("ian", "lan"),  # "ian" is "Ian" in capitals
        ("IAN", "1an"),
        ("0scar", "Oscar"),  # zero and a capital O
        ("0SCAR", "oscar"),
    ],
)
def test_names_that_look_alike_in_some_case_are_one_name(one: str, other: str) -> None:
    assert nickname_key(one) == nickname_key(other)


def test_a_key_is_its_own_key_for_every_character_of_the_table() -> None:
    """Two passes in nickname_key reach the fixed point: a name and its key are one name."""
    for character in {*prototypes(), *prototypes().values()}:
        key = nickname_key(character)
        assert nickname_key(key) == key, character
