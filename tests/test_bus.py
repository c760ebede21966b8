"""What a process does with a message that reaches it through Redis (no Redis needed:
the subscriber's hand-over is called as the reader would call it)."""

from __future__ import annotations

import json
from typing import Any

from sternhalma.server.bus import CHANNEL, RedisBus, encode


def _bus() -> tuple[RedisBus, list[tuple[str, dict[str, Any]]], list[str]]:
    bus = RedisBus("redis://127.0.0.1:1/0")  # never connected here
    observed: list[tuple[str, dict[str, Any]]] = []
    sent: list[str] = []

    def observe(table_id: str, message: dict[str, Any], origin: str) -> dict[str, Any]:
        observed.append((table_id, message))
        return message

    bus.observer = observe
    bus.subscribe("t1", lambda message: sent.append(encode(message)))
    return bus, observed, sent


def test_another_process_s_message_is_observed_and_sent_on_as_it_came() -> None:
    bus, observed, sent = _bus()
    text = '{"type": "event", "v": 3, "event": {"kind": "move", "path": ["a1", "a2"]}}'
    bus._deliver(f"{CHANNEL}t1".encode(), f'{{"o":"other","m":{text}}}'.encode())
    assert observed == [("t1", json.loads(text))]
    assert sent == [text]


def test_this_process_s_own_message_is_skipped() -> None:
    bus, observed, sent = _bus()
    data = f'{{"o":{json.dumps(bus.origin)},"m":{{"type":"event","v":1}}}}'
    bus._deliver(f"{CHANNEL}t1", data)
    assert observed == [] and sent == []


def test_malformed_messages_are_ignored() -> None:
    bus, observed, sent = _bus()
    for data in ["not json", "{}", '{"o":"other"}', '{"o":"other","m":[1,2]}', '{"m":{},"o":"x"}']:
        bus._deliver(f"{CHANNEL}t1", data)
    assert observed == [] and sent == []
