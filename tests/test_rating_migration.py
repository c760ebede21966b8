"""Migration 0003: existing Elo ratings become Glicko-2 ratings, and existing players
get the keys that keep nicknames unique; migration 0004: the keys worked out anew when
names that look alike in some case became one name."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from alembic import command
from helpers import head, migrate
from sqlalchemy import create_engine, text

from sternhalma.server.storage.migrations import config
from sternhalma.server.storage.nicknames import nickname_key


def _database_of_revision_0002(path: Path) -> None:
    """Players and ratings as part 2 kept them: two players once called Alice (one with a
    Cyrillic А), Elo ratings with 0 and 40 games."""
    engine = create_engine(f"sqlite:///{path}")
    with engine.begin() as connection:
        command.upgrade(config(connection), "0002")
        connection.execute(
            text(
                "INSERT INTO players VALUES "
                "('p1', 'Alice', 'h1', '2026-11-01 10:00:00', '2026-11-02 10:00:00'), "
                "('p2', 'Аlice', 'h2', '2026-11-01 10:00:00', '2026-11-20 10:00:00'), "
                "('p3', 'Bram', 'h3', '2026-11-01 10:00:00', '2026-11-03 10:00:00')"
            )
        )
        connection.execute(
            text(
                "INSERT INTO ratings VALUES "
                "('p1', 'classic-2', 1612.5, 40, '2026-11-02 10:00:00'), "
                "('p3', 'classic-2', 1387.5, 0, '2026-11-03 10:00:00')"
            )
        )
    engine.dispose()


def test_elo_ratings_keep_their_number_and_get_a_deviation_by_games(tmp_path: Path) -> None:
    path = tmp_path / "part2.db"
    _database_of_revision_0002(path)
    migrate(path)
    with sqlite3.connect(path) as connection:
        ratings = dict(
            (player, (rating, deviation, volatility, games))
            for player, rating, deviation, volatility, games in connection.execute(
                "SELECT player_id, rating, deviation, volatility, games FROM ratings"
            )
        )
        players = dict(connection.execute("SELECT id, name_key FROM players").fetchall())
        version = connection.execute("SELECT version_num FROM alembic_version").fetchall()
    assert version == [(head(),)]
    veteran, newcomer = ratings["p1"], ratings["p3"]
    assert veteran[0] == 1612.5 and veteran[2] == 0.06 and veteran[3] == 40
    assert newcomer[0] == 1387.5 and newcomer[1] == 350.0
    assert 50 < veteran[1] < 80  # forty games make a rating fairly sure
    # "Alice" and "Аlice" are one name: the one seen last keeps it, the other lets it go.
    assert players == {"p1": None, "p2": nickname_key("Alice"), "p3": nickname_key("Bram")}


def test_names_that_became_one_keep_one_holder_the_one_who_played_last(tmp_path: Path) -> None:
    """Before 0004 "Ian" and "lan" were two names; now they are one. Whoever played last
    keeps it; a player without a key gets none; a downgrade gives back the old keys."""
    path = tmp_path / "part3.db"
    engine = create_engine(f"sqlite:///{path}")
    with engine.begin() as connection:
        command.upgrade(config(connection), "0003")
        connection.execute(
            text(
                "INSERT INTO players (id, nickname, secret_hash, created_at, seen_at, name_key, "
                "last_game_at) VALUES "
                "('p1', 'Ian', 'h1', '2026-11-01', '2026-11-30', 'ian', '2026-11-02'), "
                "('p2', 'lan', 'h2', '2026-11-01', '2026-11-03', 'lan', '2026-11-03'), "
                "('p3', 'Bram', 'h3', '2026-11-01', '2026-11-01', 'brarn', NULL), "
                "('p4', 'Bram', 'h4', '2026-10-01', '2026-10-01', NULL, NULL)"
            )
        )
    migrate(path)

    def keys() -> dict[str, str | None]:
        with engine.connect() as connection:
            rows = connection.execute(text("SELECT id, name_key FROM players"))
            return {row.id: row.name_key for row in rows}

    assert keys() == {"p1": None, "p2": nickname_key("Ian"), "p3": "brarn", "p4": None}
    assert nickname_key("Ian") == nickname_key("lan")
    with engine.begin() as connection:
        command.downgrade(config(connection), "0003")
    assert keys() == {"p1": None, "p2": "lan", "p3": "brarn", "p4": None}
    engine.dispose()


def test_names_with_invisible_characters_become_one_name_with_the_plain_one(
    tmp_path: Path,
) -> None:
    """Migration 0009: "Alice" with a combining grapheme joiner was a name of its own;
    now it is "Alice", and whoever played last keeps it."""
    path = tmp_path / "part4.db"
    engine = create_engine(f"sqlite:///{path}")
    with engine.begin() as connection:
        command.upgrade(config(connection), "0004")
        connection.execute(
            text(
                "INSERT INTO players (id, nickname, secret_hash, created_at, seen_at, name_key, "
                "last_game_at) VALUES "
                "('p1', 'Alice', 'h1', '2026-11-01', '2026-11-01', :plain, '2026-11-02'), "
                "('p2', :hidden, 'h2', '2026-11-01', '2026-11-03', :hidden_key, '2026-11-03')"
            ),
            {"plain": "alice", "hidden": "Alice\u034f", "hidden_key": "alice\u034f"},
        )
    migrate(path)
    with engine.connect() as connection:
        keys = dict(connection.execute(text("SELECT id, name_key FROM players")).all())
    engine.dispose()
    assert keys == {"p1": None, "p2": nickname_key("Alice")}
