"""The database behind the tables: the store, its rows and migrations, identities."""
