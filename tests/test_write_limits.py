"""Limits that hold however a client goes about it (issue 25): a rematch is a new table,
finished tables do not pile up for good, and the new-identity limit is counted where the
identity is written, so clients racing each other get no more than one at a time would."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from test_fair_play import OPEN, new_game, play_first_moves
from test_online import create, make_client, reply_to, socket
from test_server import PERSON, event_of, receive_until

from sternhalma.server.web.connection import AddressLimits


def test_a_rematch_loop_counts_against_the_new_tables_limit(tmp_path: Path) -> None:
    """Two players ending games and rematching made a table a few milliseconds past
    ``--max-new-tables``: each rematch is now a new table from the address that asks last."""
    limits = AddressLimits(tables=3, window=600)
    with make_client(tmp_path / "loop.db", identities=OPEN, per_address=limits) as client:
        table = new_game(client)  # the first of 3 new tables
        white_token, black_token = table["token"], table["guest"]["token"]
        table_id = table["id"]
        made = [table_id]
        for _ in range(2):
            with (
                socket(client, table_id, white_token) as white,
                socket(client, table_id, black_token) as black,
            ):
                black.send_json({"type": "abort"})  # before the first moves
                receive_until(white, event_of("abort"))
                white.send_json({"type": "rematch"})
                receive_until(black, event_of("rematch-offer"))
                black.send_json({"type": "rematch"})
                table_id = receive_until(white, event_of("rematch"))["event"]["table"]
                made.append(table_id)
            # Seats rotate: the guest plays white next time.
            white_token, black_token = black_token, white_token
        assert len(set(made)) == 3
        with (
            socket(client, table_id, white_token) as white,
            socket(client, table_id, black_token) as black,
        ):
            black.send_json({"type": "abort"})
            receive_until(white, event_of("abort"))
            white.send_json({"type": "rematch"})
            receive_until(black, event_of("rematch-offer"))
            refused = reply_to(black, {"type": "rematch"})
            assert refused["code"] == "too-many"
            assert "at most 3 in 10 minutes" in refused["message"]
            assert refused["state"]["rematch"] is None  # nothing was made
        with sqlite3.connect(tmp_path / "loop.db") as connection:
            assert connection.execute("SELECT count(*) FROM tables").fetchone()[0] == 3
        # A table on one screen counts as well.
        local = client.post(
            "/api/tables", json={"variant": "classic-2", "seats": [PERSON, PERSON]}
        )
        assert local.status_code == 429


def test_old_finished_unrated_tables_are_removed_and_rated_games_kept(tmp_path: Path) -> None:
    database = tmp_path / "old.db"
    with make_client(database, identities=OPEN) as client:
        unrated = new_game(client, nickname="Ayşe", guest="Bram")
        rated = new_game(client, nickname="Cem", guest="Dila", rated=True)
        playing = new_game(client, nickname="Emre", guest="Fatma")
        recent = new_game(client, nickname="Gül", guest="Hakan")
        for table in (unrated, rated, recent):
            with (
                socket(client, table["id"], table["token"]) as white,
                socket(client, table["id"], table["guest"]["token"]) as black,
            ):
                play_first_moves(white, black)
                black.send_json({"type": "resign"})
                over = receive_until(white, event_of("resign", 1))["state"]
                assert (over["ratings"] is not None) == (table is rated)
        aborted_rated = create(client, "classic-2", [PERSON, PERSON], rated=False)
        with socket(client, aborted_rated["id"], aborted_rated["token"]) as ws:
            ws.send_json({"type": "resign", "seat": 0})
            receive_until(ws, event_of("resign"))
        old = [unrated["id"], rated["id"], playing["id"], aborted_rated["id"]]
        with sqlite3.connect(database) as connection:
            connection.executemany(
                "UPDATE tables SET updated_at = datetime('now', '-31 days') WHERE id = ?",
                [(table_id,) for table_id in old],
            )
        tables = client.app.state.tables  # type: ignore[attr-defined]
        removed = client.portal.call(tables.tidy)  # type: ignore[union-attr]
        assert sorted(removed) == sorted([unrated["id"], aborted_rated["id"]])
        for table_id in (unrated["id"], aborted_rated["id"]):
            assert client.get(f"/api/tables/{table_id}").status_code == 404
        for table_id in (rated["id"], playing["id"], recent["id"]):
            assert client.get(f"/api/tables/{table_id}").status_code == 200
        with sqlite3.connect(database) as connection:
            events = connection.execute(
                "SELECT count(*) FROM table_events WHERE table_id = ?", (unrated["id"],)
            ).fetchone()[0]
        assert events == 0
        # The rated game's result is still behind the ratings.
        assert client.get(f"/api/tables/{rated['id']}").json()["ratings"] is not None


def test_finished_tables_are_kept_for_good_with_a_retention_of_zero(tmp_path: Path) -> None:
    database = tmp_path / "keep.db"
    with make_client(database, identities=OPEN, keep_finished=0) as client:
        table = create(client, "classic-2", [PERSON, PERSON])
        with socket(client, table["id"], table["token"]) as ws:
            ws.send_json({"type": "resign", "seat": 0})
            receive_until(ws, event_of("resign"))
        with sqlite3.connect(database) as connection:
            connection.execute("UPDATE tables SET updated_at = '2020-01-01 00:00:00.000000'")
        tables = client.app.state.tables  # type: ignore[attr-defined]
        assert client.portal.call(tables.tidy) == []  # type: ignore[union-attr]
        assert client.get(f"/api/tables/{table['id']}").status_code == 200


