"""The seek pool (issue 23): players who never shared a link are paired, and 3–6-player
tables fill by themselves.

The database is the pool (``seeks`` rows, server/storage/seeks.py): whichever
process a player's websocket reaches, the seek is a row, and every process pairs
from the rows in one transaction (PostgreSQL: ``FOR UPDATE SKIP LOCKED``; SQLite:
its one writer). A pairing writes the new table and marks the seeks in that same
transaction, so a player is paired once or not at all. The process holding a
player's websocket hears of it through the bus (and, should the bus lose it, from
the row at its next look) and sends the player to the table, already seated.

- ``planning.py``: who is paired with whom (pure functions);
- ``service.py``: ``Pools``, this process's seekers and its pairing loop.
"""
