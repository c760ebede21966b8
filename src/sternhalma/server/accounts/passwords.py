"""Passwords: hashed with argon2id (argon2-cffi), never stored or logged in clear."""

from __future__ import annotations

import asyncio

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from sternhalma.server.protocol import TableError

#: argon2-cffi's defaults (RFC 9106's second recommendation: 64 MiB, 3 passes).
_HASHER = PasswordHasher()
#: What a refused log-in compares with when there is no such account: the same work,
#: so the time taken does not tell which nicknames have accounts.
_NOBODY = _HASHER.hash("no such account")
MIN_LENGTH = 8
MAX_LENGTH = 200


def check_password(value: object) -> str:
    """A new password: 8 to 200 characters. TableError("password") says what is wrong."""
    if not isinstance(value, str):
        raise TableError("password", "type a password")
    if not MIN_LENGTH <= len(value) <= MAX_LENGTH:
        raise TableError("password", f"a password has {MIN_LENGTH} to {MAX_LENGTH} characters")
    return value


async def hash_password(password: str) -> str:
    """The stored form of ``password`` (hashed in a thread: it takes tens of ms)."""
    return await asyncio.to_thread(_HASHER.hash, password)


async def verify_password(stored: str | None, password: str) -> bool:
    """Whether ``password`` is the one ``stored`` was made from (None: no account,
    compared anyway)."""

    def verify() -> bool:
        try:
            return _HASHER.verify(stored or _NOBODY, password) and stored is not None
        except (VerificationError, InvalidHashError):
            return False

    return await asyncio.to_thread(verify)


def needs_rehash(stored: str) -> bool:
    """Whether ``stored`` was made with weaker parameters than today's."""
    return _HASHER.check_needs_rehash(stored)
