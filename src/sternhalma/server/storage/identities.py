"""The rules that keep identities from being farmed (docs/ratings.md): how many new
identities one address may make, when a game between identities from one address
is not rated, and when an unused identity lets its nickname go.

An identity remembers only a keyed hash (HMAC-SHA-256 with the deployment's address
key, docs/deploy.md) of the address it was made from, never the address itself.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy import func, insert, select, text, update
from sqlalchemy.engine import Connection

from sternhalma.server.protocol import TableError
from sternhalma.server.storage.account_rows import is_trusted, session_player
from sternhalma.server.storage.nicknames import nickname_key
from sternhalma.server.storage.schema import PlayerRow

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
    #: Two accounts from one address are rated against each other when both are this
    #: many seconds old and have this many rated games (docs/ratings.md).
    account_age: float = DAY
    account_games: int = 3


def hash_address(address: str, key: str = "") -> str:
    """What an identity keeps of the address it was made from: keyed with the
    deployment's secret, so a leaked table of hashes cannot be reversed by trying
    every address."""
    if not key:
        return hashlib.sha256(f"sternhalma address {address}".encode()).hexdigest()
    return hmac.new(key.encode(), f"address {address}".encode(), hashlib.sha256).hexdigest()


@dataclass(frozen=True)
class Origin:
    """Where and when an identity was made (None where that is unknown: made before
    identities remembered it)."""

    address_hash: str | None
    created_at: datetime | None
    #: An account old enough and with games enough (IdentityRules.account_age): two
    #: such players from one address are rated.
    trusted: bool = False


def share_an_address(origins: Sequence[Origin], within: float) -> bool:
    """Whether two of ``origins`` were made from one address less than ``within``
    seconds apart."""
    if within <= 0:
        return False
    known = [o for o in origins if o.address_hash is not None and o.created_at is not None]
    for i, first in enumerate(known):
        for second in known[i + 1 :]:
            if first.address_hash != second.address_hash or (first.trusted and second.trusted):
                continue
            assert first.created_at is not None and second.created_at is not None
            if abs((first.created_at - second.created_at).total_seconds()) < within:
                return True
    return False


@dataclass(frozen=True)
class Identity:
    """Who sits down, as found before anything is written: an existing player (maybe
    under a new nickname) or a new one. The commit of the sit writes it (``claim``)."""

    id: str
    nickname: str
    #: The identity's secret (the browser keeps it) and its SHA-256 (the database does).
    secret: str
    secret_hash: str
    new: bool
    origin: Origin

    @property
    def key(self) -> str:
        return nickname_key(self.nickname)


class NicknameHeld(TableError):
    def __init__(self, nickname: str) -> None:
        super().__init__(
            "nickname-held",
            f"another player is called {nickname}, or something that looks just like it; "
            "pick another nickname",
        )


def existing(
    connection: Connection,
    nickname: str,
    secret_hash: str | None,
    address_hash: str,
    rules: IdentityRules,
    now: datetime,
) -> tuple[str, Origin] | None:
    """Whether a sit under ``nickname`` may go ahead, and as whom: the player whose secret
    hashes to ``secret_hash`` (their id and origin), or None for a new one from the
    address. Nothing is written. NicknameHeld when another player holds the nickname;
    TableError("too-many-identities") when a new identity would be one more than the
    address may make in an hour."""
    row = None
    if secret_hash is not None:
        row = connection.execute(
            select(PlayerRow.id, PlayerRow.address_hash, PlayerRow.created_at).where(
                PlayerRow.secret_hash == secret_hash
            )
        ).first()
    if row is None and secret_hash is not None:
        # A logged-in browser's play secret (server/accounts/): its session's player.
        player = session_player(connection, secret_hash, now)
        if player is not None:
            row = connection.execute(
                select(PlayerRow.id, PlayerRow.address_hash, PlayerRow.created_at).where(
                    PlayerRow.id == player
                )
            ).first()
    found = None
    if row is not None:
        trusted = is_trusted(connection, str(row.id), now, rules.account_age, rules.account_games)
        found = (str(row.id), Origin(row.address_hash, _aware(row.created_at), trusted))
    mine = found[0] if found is not None else None
    if holder(connection, nickname_key(nickname), now, rules) not in (None, mine):
        raise NicknameHeld(nickname)
    if found is not None:
        return found
    if made_within_the_hour(connection, address_hash, now) >= rules.per_hour:
        raise _too_many(rules)
    return None


def made_within_the_hour(connection: Connection, address_hash: str, now: datetime) -> int:
    """How many identities were made from the address in the hour before ``now``."""
    made: int = connection.execute(
        select(func.count())
        .select_from(PlayerRow)
        .where(
            PlayerRow.address_hash == address_hash,
            PlayerRow.created_at > now - timedelta(seconds=HOUR),
        )
    ).scalar_one()
    return made


def _too_many(rules: IdentityRules) -> TableError:
    return TableError(
        "too-many-identities",
        f"too many new players from your address (at most {rules.per_hour} an hour); "
        "come back later, or play under the nickname you already have",
    )


#: The first key of PostgreSQL's advisory locks on an address's new identities (the
#: second is taken from the address's hash).
ADDRESS_LOCK = 51475


def holder(connection: Connection, key: str, now: datetime, rules: IdentityRules) -> str | None:
    """The player who holds the nickname ``key`` now: one who started or finished a game
    (or was made) within ``rules.keep_nickname`` seconds."""
    row = connection.execute(
        select(PlayerRow.id, PlayerRow.last_game_at, PlayerRow.created_at).where(
            PlayerRow.name_key == key
        )
    ).first()
    if row is None:
        return None
    last = _aware(row.last_game_at or row.created_at)
    return str(row.id) if last > now - timedelta(seconds=rules.keep_nickname) else None


def check_claim(
    connection: Connection, identity: Identity, rules: IdentityRules, now: datetime
) -> None:
    """Whether ``identity`` may still be written, checked in the transaction that writes
    it and before anything of its commit is: the nickname is not held by another player,
    and a new identity is within its address's hourly limit. ``existing`` looked before,
    but requests racing each other all pass a look; here they take turns: SQLite has one
    writer at a time (BEGIN IMMEDIATE), and on PostgreSQL a transaction-long advisory lock
    on the address makes the count and the insert one step."""
    current = holder(connection, identity.key, now, rules)
    if current not in (None, identity.id):
        raise NicknameHeld(identity.nickname)  # taken since ``existing`` looked
    address = identity.origin.address_hash
    if not identity.new or address is None:
        return
    if connection.dialect.name == "postgresql":
        connection.execute(
            text("SELECT pg_advisory_xact_lock(:space, :key)"),
            {"space": ADDRESS_LOCK, "key": int(address[:8], 16) - 2**31},
        )
    if made_within_the_hour(connection, address, now) >= rules.per_hour:
        raise _too_many(rules)


def claim(connection: Connection, identity: Identity, rules: IdentityRules, now: datetime) -> None:
    """Write ``identity`` as part of the commit of its sit: the new player, or the
    player's new nickname; a nickname another player let go is taken from them.
    ``check_claim`` must have passed in the same transaction."""
    key = identity.key
    connection.execute(
        update(PlayerRow)
        .where(PlayerRow.name_key == key, PlayerRow.id != identity.id)
        .values(name_key=None)
    )
    if identity.new:
        connection.execute(
            insert(PlayerRow).values(
                id=identity.id,
                nickname=identity.nickname,
                secret_hash=identity.secret_hash,
                created_at=now,
                seen_at=now,
                name_key=key,
                address_hash=identity.origin.address_hash,
            )
        )
    else:
        connection.execute(
            update(PlayerRow)
            .where(PlayerRow.id == identity.id)
            .values(nickname=identity.nickname, name_key=key, seen_at=now)
        )


def played(connection: Connection, players: Sequence[str], now: datetime) -> None:
    """The players started or finished a game now (they keep their nicknames)."""
    if players:
        connection.execute(
            update(PlayerRow).where(PlayerRow.id.in_(players)).values(last_game_at=now)
        )


def _aware(moment: datetime) -> datetime:
    """SQLite gives back times without their zone; they were written in UTC."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
