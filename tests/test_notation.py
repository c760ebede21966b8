"""Position JSON (rules.md#position-json): round trips, a clear error for each kind of bad input."""

from __future__ import annotations

import json

import pytest

from sternhalma import InvalidPositionError, find_variant, position_from_json, position_to_json
from sternhalma.notation import position_to_dict


def start_dict(variant: str = "classic-2") -> dict[str, object]:
    return position_to_dict(find_variant(variant).initial())


def test_round_trip_and_shape() -> None:
    start = find_variant("classic-3").initial()
    data = json.loads(position_to_json(start))
    assert data["variant"] == "classic-3" and data["turn"] == "white"
    assert set(data["marbles"]) == {"white", "blue", "yellow"}
    assert data["marbles"]["white"][0] == "m1"
    assert position_from_json(position_to_json(start)) == start


def test_case_and_spaces_in_names_are_accepted() -> None:
    data = start_dict()
    data["turn"] = "White"
    data["marbles"]["white"] = [h.upper() for h in data["marbles"]["white"]]  # type: ignore[index]
    assert position_from_json(json.dumps(data)) == find_variant("classic-2").initial()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.update(variant="classic-5"), "unknown variant 'classic-5'"),
        (lambda d: d.pop("variant"), "variant"),
        (lambda d: d.update(turn="red"), "turn"),
        (lambda d: d["marbles"].pop("black"), "marbles of black are missing"),
        (lambda d: d["marbles"].update(red=["e5"]), "'red' has no seat"),
        (lambda d: d["marbles"]["white"].__setitem__(0, "z9"), "unknown hole 'z9'"),
        (lambda d: d["marbles"]["white"].__setitem__(0, "e14"), "two marbles on e14"),
        (lambda d: d["marbles"]["white"].pop(), "white has 9 marbles; classic-2 needs 10"),
        (lambda d: d.update(marbles=["m1"]), "marbles"),
        (lambda d: d["marbles"].update(white="m1 l2"), "list of hole names"),
    ],
)
def test_bad_positions_say_what_is_wrong(change: object, message: str) -> None:
    data = start_dict()
    change(data)  # type: ignore[operator]
    with pytest.raises(InvalidPositionError, match=message):
        position_from_json(json.dumps(data))


def test_not_json_and_not_an_object() -> None:
    with pytest.raises(InvalidPositionError, match="not valid JSON"):
        position_from_json("{variant: classic-2")
    with pytest.raises(InvalidPositionError, match="JSON object"):
        position_from_json("[1, 2]")


def test_players_who_are_out_have_no_marbles() -> None:
    # With three or more players an out player's marbles leave the board.
    data = start_dict("classic-4")
    data["marbles"]["red"] = []  # type: ignore[index]
    position = position_from_json(json.dumps(data))
    assert position.marbles[1] == 0
    data["turn"] = "red"
    with pytest.raises(InvalidPositionError, match="no marbles"):
        position_from_json(json.dumps(data))
    two = start_dict()
    two["marbles"]["black"] = []  # type: ignore[index]
    with pytest.raises(InvalidPositionError, match="black has 0 marbles"):
        position_from_json(json.dumps(two))
