"""The database's tables as SQLAlchemy rows (the schema the Alembic migrations in
``server/storage/migrations/`` make and upgrade):

- ``tables``: one row per table, the snapshot that rebuilds it: variant, seats
  (with the online players' nicknames and hashed seat tokens), start, the
  actions played (moves, resignations, flags; the referee replays them), the
  clock's banks, the result, the rematch, and the table's **version**.
- ``table_events``: the event log, one row per version of a table. A
  reconnecting client is sent the events it missed from here.
- ``players``: a nickname and the hash of the secret identity its browser keeps.
- ``ratings`` (a player's rating per category) and ``rating_changes`` (what
  each rated game did to each player's rating).
- ``chat_lines``: what was said at an online table, in the players' room or the
  spectators' (storage/chat.py).
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import (
    BigInteger,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    inspect,
)
from sqlalchemy.engine import Connection
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


class Base(DeclarativeBase):
    pass


class TableRow(Base):
    __tablename__ = "tables"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    variant: Mapped[str] = mapped_column(String(40))
    #: JSON list of seats: {"kind": "person"}, {"kind": "computer", "level": "easy"} or
    #: {"kind": "online", "player": id, "nickname": "...", "token_hash": "..."}.
    seats: Mapped[str] = mapped_column(Text)
    #: Position JSON (rules.md#position-json) when the table did not start from the initial position.
    start: Mapped[str | None] = mapped_column(Text, nullable=True)
    #: JSON list: own moves per seat made before ``start`` (a game set up mid-way).
    moves_made: Mapped[str | None] = mapped_column(Text, nullable=True)
    deadline_rule: Mapped[bool] = mapped_column(Boolean, default=True)
    #: SHA-256 of the creating browser's secret (it holds the person seats).
    token_hash: Mapped[str] = mapped_column(String(64))
    seed: Mapped[int] = mapped_column(Integer)
    #: JSON list of actions: {"seat": 0, "move": "m1-m3-k5"}, {"seat": 1, "resign": true},
    #: {"seat": 1, "flag": true}.
    actions: Mapped[str] = mapped_column(Text, default="[]")
    version: Mapped[int] = mapped_column(Integer, default=0)
    over: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    # -- part 2 (migration 0002) --
    #: waiting (online seats free), playing or over.
    status: Mapped[str] = mapped_column(String(16), default="playing", index=True)
    rated: Mapped[bool] = mapped_column(Boolean, default=False)
    #: The time control ("5+3"), or None for a table without a clock.
    clock_control: Mapped[str | None] = mapped_column(String(32), nullable=True)
    #: JSON list: each seat's time left (ms) as of ``clock_at``.
    clock_banks: Mapped[str | None] = mapped_column(Text, nullable=True)
    #: The seat whose time was running at ``clock_at`` (None: stopped).
    clock_running: Mapped[int | None] = mapped_column(Integer, nullable=True)
    #: When the banks were written (ms since the epoch).
    clock_at: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    #: JSON: {"places", "team_places", "ending", "reason", "seat"} once over.
    result: Mapped[str | None] = mapped_column(Text, nullable=True)
    #: The rematch table's id, and the seats that asked for it (JSON list).
    rematch: Mapped[str | None] = mapped_column(String(32), nullable=True)
    rematch_offers: Mapped[str] = mapped_column(Text, default="[]")
    #: The table this one is a rematch of.
    previous: Mapped[str | None] = mapped_column(String(32), nullable=True)
    # -- issue 14 (migration 0003) --
    #: When somebody was last at the table (waiting tables nobody visits leave the
    #: lobby, and are removed after a day).
    visited_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class EventRow(Base):
    __tablename__ = "table_events"

    table_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True
    )
    version: Mapped[int] = mapped_column(Integer, primary_key=True)
    kind: Mapped[str] = mapped_column(String(24))
    #: The event as sent to clients (JSON object).
    data: Mapped[str] = mapped_column(Text)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class PlayerRow(Base):
    __tablename__ = "players"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    nickname: Mapped[str] = mapped_column(String(64))
    secret_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    seen_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    # -- issue 14 (migration 0003) --
    #: The nickname's key (`nickname_key`, server/storage/nicknames.py; migration 0004) while this
    #: player holds it; None once another player took the nickname it had let go.
    name_key: Mapped[str | None] = mapped_column(String(200), nullable=True)
    #: SHA-256 of the address the identity was made from (None: made before 0003).
    address_hash: Mapped[str | None] = mapped_column(String(64), nullable=True)
    #: When the player last started or finished a game (the nickname is let go 90 days on).
    last_game_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)

    __table_args__ = (
        Index("ix_players_name_key", "name_key", unique=True),
        Index("ix_players_address_hash", "address_hash", "created_at"),
    )


class RatingRow(Base):
    __tablename__ = "ratings"

    player_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("players.id", ondelete="CASCADE"), primary_key=True
    )
    #: The variant id (ratings of different variants are not comparable).
    category: Mapped[str] = mapped_column(String(40), primary_key=True)
    rating: Mapped[float] = mapped_column(Float)
    games: Mapped[int] = mapped_column(Integer)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    # -- issue 14 (migration 0003): Glicko-2 --
    deviation: Mapped[float] = mapped_column(Float, server_default="350.0")
    volatility: Mapped[float] = mapped_column(Float, server_default="0.06")


class RatingChangeRow(Base):
    __tablename__ = "rating_changes"

    table_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True
    )
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    player_id: Mapped[str] = mapped_column(String(32), ForeignKey("players.id"), index=True)
    category: Mapped[str] = mapped_column(String(40))
    before: Mapped[float] = mapped_column(Float)
    after: Mapped[float] = mapped_column(Float)
    #: The player's rated games in this category before this one.
    games: Mapped[int] = mapped_column(Integer)


class ChatRow(Base):
    """One line of a table's chat (migration 0007_chat)."""

    __tablename__ = "chat_lines"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    table_id: Mapped[str] = mapped_column(String(32), index=True)
    #: ``players`` or ``spectators``.
    room: Mapped[str] = mapped_column(String(16))
    player_id: Mapped[str | None] = mapped_column(String(32), nullable=True)
    nickname: Mapped[str] = mapped_column(String(64))
    #: The seat of a player who said it (None: a spectator).
    seat: Mapped[int | None] = mapped_column(Integer, nullable=True)
    text: Mapped[str] = mapped_column(Text)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


def table_columns(connection: Connection, name: str) -> set[str]:
    """The column names of table ``name`` (empty when there is no such table)."""
    inspector = inspect(connection)
    if not inspector.has_table(name):
        return set()
    return {column["name"] for column in inspector.get_columns(name)}


class SeekRow(Base):
    """A player waiting in a pool (issue 23, migration 0008_pool; server/pool/). The database is
    the pool: every process pairs from these rows in a transaction (docs/deploy.md)."""

    __tablename__ = "seeks"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    #: The kind of game: "variant|clock|rated" (server/pool/planning.py ``PoolKey``).
    pool: Mapped[str] = mapped_column(String(80))
    #: One seek per player at a time.
    player_id: Mapped[str] = mapped_column(String(32), unique=True)
    nickname: Mapped[str] = mapped_column(String(64))
    #: The player's rating in the variant when they joined (1500 for a newcomer).
    rating: Mapped[float] = mapped_column(Float)
    #: Where and when the identity was made (a rated pool pairs no identities that
    #: would make the game unrated, docs/ratings.md).
    address_hash: Mapped[str | None] = mapped_column(String(64), nullable=True)
    identity_made: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    #: SHA-256 of the seat token the joining process keeps for the player.
    token_hash: Mapped[str] = mapped_column(String(64))
    #: The player agreed to start with computer seats (3–6-player pools).
    computers: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    #: Refreshed by the process holding the player's websocket: a seek not seen for a
    #: while belongs to a process that went away and is removed.
    seen_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    #: Once paired: the table and the seat (the row goes when the player was told).
    table_id: Mapped[str | None] = mapped_column(String(32), nullable=True)
    seat: Mapped[int | None] = mapped_column(Integer, nullable=True)

    __table_args__ = (Index("ix_seeks_pool", "pool", "table_id"),)
