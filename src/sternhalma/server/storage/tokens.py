"""The secrets a browser holds (seat tokens, identities) and the hashes the database keeps
of them: never the secret itself."""

from __future__ import annotations

import hashlib
import secrets


def hash_secret(secret: str) -> str:
    """Only hashes of seat tokens and identities are stored (SHA-256, hex)."""
    return hashlib.sha256(secret.encode()).hexdigest()


def new_secret() -> str:
    """A long random secret (seat tokens, identities): 32 URL-safe characters."""
    return secrets.token_urlsafe(24)
