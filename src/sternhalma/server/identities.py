"""The rules that keep identities from being farmed (docs/ratings.md): how many new
identities one address may make, when a game between identities from one address
is not rated, and when an unused identity lets its nickname go.

An identity remembers only a SHA-256 of the address it was made from, never the
address itself.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

HOUR = 3600.0
DAY = 24 * HOUR


@dataclass(frozen=True)
class IdentityRules:
    #: New identities one client address may make in any hour.
    per_hour: int = 5
    #: A game is not rated when two of its players' identities were made from one
    #: address less than this many seconds apart (0: never; e.g. everyone behind one NAT).
    same_address: float = DAY
    #: An identity that started or finished no game for this many seconds lets its
    #: nickname go.
    keep_nickname: float = 90 * DAY


def hash_address(address: str) -> str:
    """What an identity keeps of the address it was made from."""
    return hashlib.sha256(f"sternhalma address {address}".encode()).hexdigest()


@dataclass(frozen=True)
class Origin:
    """Where and when an identity was made (None where that is unknown: made before
    identities remembered it)."""

    address_hash: str | None
    created_at: datetime | None


def share_an_address(origins: Sequence[Origin], within: float) -> bool:
    """Whether two of ``origins`` were made from one address less than ``within``
    seconds apart."""
    if within <= 0:
        return False
    known = [o for o in origins if o.address_hash is not None and o.created_at is not None]
    for i, first in enumerate(known):
        for second in known[i + 1 :]:
            if first.address_hash != second.address_hash:
                continue
            assert first.created_at is not None and second.created_at is not None
            if abs((first.created_at - second.created_at).total_seconds()) < within:
                return True
    return False
