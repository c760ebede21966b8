"""Accounts (docs/accounts.md): a nickname protected by a password, sessions of logged-in
browsers, limits on log-in attempts, and what a player's pages show (profile, games,
ratings). Playing needs no account: an account only lets a player carry a nickname, its
ratings and its games from one device to another."""
