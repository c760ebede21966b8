"""The web server: every game is a table on the server (docs/architecture.md).

- ``protocol``: what a browser may send, checked; the errors a table answers with;
- ``bus``: the broadcast between the processes of a cluster (memory or Redis);
- ``tables/``: the tables in memory and the one path of every change;
- ``storage/``: the database (SQLAlchemy, Alembic), identities and nicknames;
- ``thinking/``: the computer's thinking, in this process's pool or on Redis workers;
- ``web/``: the FastAPI app, its guard, the table and analysis websockets.
"""
