"""Clocks: time controls, banks and increments, on a time source set by hand."""

from __future__ import annotations

import pytest

from sternhalma.clock import Clock, ClockError, TimeControl, parse_time_control


class FakeTime:
    def __init__(self) -> None:
        self.ms = 0

    def __call__(self) -> int:
        return self.ms


@pytest.mark.parametrize(
    ("text", "bank", "increment"),
    [
        ("5+3", 300_000, 3_000),
        (" 10 + 0 ", 600_000, 0),
        ("10", 600_000, 0),
        ("0.5+2", 30_000, 2_000),
        ("1.5+0.5", 90_000, 500),
    ],
)
def test_time_controls_are_minutes_plus_seconds(text: str, bank: int, increment: int) -> None:
    assert parse_time_control(text) == TimeControl(bank, increment)


@pytest.mark.parametrize("text", ["", "abc", "5+", "+3", "-1+3", "5+3+1", "5:00", "0+3"])
def test_bad_time_controls_say_what_to_write(text: str) -> None:
    with pytest.raises(ClockError) as error:
        parse_time_control(text)
    assert isinstance(error.value, ValueError)
    assert "minutes" in str(error.value) or "time" in str(error.value)


def test_a_time_control_writes_what_it_reads() -> None:
    for text in ("5+3", "0.5+2", "90+30", "1.5+0.5"):
        assert str(parse_time_control(text)) == text
    assert str(parse_time_control("10")) == "10+0"


def test_the_running_seat_is_charged_and_gets_the_increment() -> None:
    now = FakeTime()
    clock = Clock("5+3", 2, now=now)
    clock.start(0)
    now.ms = 10_000
    assert clock.remaining(0) == 290_000  # live while running
    assert clock.remaining(1) == 300_000
    assert clock.punch(0)
    assert clock.remaining(0) == 293_000
    assert clock.running is None
    clock.start(1)
    now.ms = 25_000
    assert clock.punch(1)
    assert clock.remaining(1) == 300_000 - 15_000 + 3_000


def test_a_late_move_gets_no_increment() -> None:
    now = FakeTime()
    clock = Clock("1+5", 2, now=now)
    clock.start(0)
    now.ms = 61_000
    assert clock.is_out_of_time(0)
    assert not clock.punch(0)
    assert clock.remaining(0) == 0


def test_time_runs_out_exactly_at_zero() -> None:
    now = FakeTime()
    clock = Clock("1+0", 2, now=now)
    clock.start(1)
    now.ms = 59_999
    assert not clock.is_out_of_time(1)
    now.ms = 60_000
    assert clock.is_out_of_time(1)


def test_switching_seats_charges_without_increment() -> None:
    now = FakeTime()
    clock = Clock("1+10", 3, now=now)
    clock.start(0)
    now.ms = 4_000
    clock.start(2)
    assert clock.remaining(0) == 56_000
    now.ms = 5_000
    clock.stop()
    assert clock.remaining(2) == 59_000
    assert clock.running is None


def test_only_the_running_seat_can_punch() -> None:
    clock = Clock("5+3", 2, now=FakeTime())
    clock.start(0)
    with pytest.raises(ClockError):
        clock.punch(1)
    with pytest.raises(ClockError):
        clock.remaining(2)


def test_a_copy_keeps_its_own_banks() -> None:
    now = FakeTime()
    clock = Clock("5+3", 2, now=now)
    clock.start(0)
    other = clock.copy()
    now.ms = 1_000
    other.punch(0)
    assert other.remaining(0) == 302_000
    assert clock.remaining(0) == 299_000
    assert clock.running == 0
