"""The rows of accounts (migration 0005_accounts): a password that protects a player's
nickname, the sessions of logged-in browsers, failed log-ins (the limits hold across
server processes), and the deployment's own secrets. The rest of the accounts lives in
``server/accounts/``; these rows are here because the identity lookup
(storage/identities.py) accepts a session's play secret too.
"""

from __future__ import annotations

import secrets
from datetime import UTC, datetime, timedelta

from sqlalchemy import DateTime, ForeignKey, Index, Integer, String, func, insert, select
from sqlalchemy.engine import Connection
from sqlalchemy.orm import Mapped, mapped_column

from sternhalma.server.storage.schema import Base, RatingChangeRow

#: A session not used for this long is over (the browser must log in again).
SESSION_DAYS = 90


class AccountRow(Base):
    """A player whose nickname is protected by a password."""

    __tablename__ = "accounts"

    player_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("players.id", ondelete="CASCADE"), primary_key=True
    )
    #: The argon2id hash (its parameters and salt inside), never the password.
    password_hash: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class SessionRow(Base):
    """One logged-in browser: the HttpOnly cookie proves it (``token_hash``), and the
    play secret the browser keeps as its identity (``secret_hash``) sits it down."""

    __tablename__ = "sessions"

    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    player_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("players.id", ondelete="CASCADE"), index=True
    )
    secret_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    seen_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class LoginFailureRow(Base):
    """A refused log-in, counted per account and per (keyed hash of an) address."""

    __tablename__ = "login_failures"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    #: "player:<id>" or "address:<hash>".
    key: Mapped[str] = mapped_column(String(100))
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True))

    __table_args__ = (Index("ix_login_failures_key_at", "key", "at"),)


class DeploymentRow(Base):
    """Values one deployment keeps for all its processes (the address key)."""

    __tablename__ = "deployment"

    name: Mapped[str] = mapped_column(String(40), primary_key=True)
    value: Mapped[str] = mapped_column(String(200))


def session_player(connection: Connection, secret_hash: str, now: datetime) -> str | None:
    """The player whose session's play secret hashes to ``secret_hash`` (a live session)."""
    return connection.execute(
        select(SessionRow.player_id).where(
            SessionRow.secret_hash == secret_hash,
            SessionRow.seen_at > now - timedelta(days=SESSION_DAYS),
        )
    ).scalar_one_or_none()


def is_trusted(connection: Connection, player: str, now: datetime, age: float, games: int) -> bool:
    """Whether ``player`` is an account older than ``age`` seconds with at least ``games``
    rated games: such players are rated against each other from one address."""
    made = connection.execute(
        select(AccountRow.created_at).where(AccountRow.player_id == player)
    ).scalar_one_or_none()
    if made is None:
        return False
    if made.tzinfo is None:
        made = made.replace(tzinfo=UTC)
    if made > now - timedelta(seconds=age):
        return False
    played = connection.execute(
        select(func.count()).select_from(RatingChangeRow).where(RatingChangeRow.player_id == player)
    ).scalar_one()
    return int(played) >= games


def address_key(connection: Connection, given: str | None) -> str:
    """The key of address hashes: ``given`` (the ``--address-secret`` option), or the one
    this deployment made on its first start and keeps in the database."""
    if given:
        return given
    found = connection.execute(
        select(DeploymentRow.value).where(DeploymentRow.name == "address-secret")
    ).scalar_one_or_none()
    if found is not None:
        return str(found)
    made = secrets.token_urlsafe(32)
    connection.execute(insert(DeploymentRow).values(name="address-secret", value=made))
    return made
