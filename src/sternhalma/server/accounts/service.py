"""Making an account, logging in and out, changing the password, deleting the account.

Every write is one transaction on the store's database, and the limits on log-in
attempts are rows there too: several server processes share them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy import ColumnElement, delete, func, insert, select, update
from sqlalchemy.engine import Connection

from sternhalma.server.accounts.passwords import (
    check_password,
    hash_password,
    needs_rehash,
    verify_password,
)
from sternhalma.server.protocol import TableError
from sternhalma.server.storage.account_rows import (
    SESSION_DAYS,
    AccountRow,
    LoginFailureRow,
    SessionRow,
)
from sternhalma.server.storage.identities import Identity, claim
from sternhalma.server.storage.nicknames import nickname_key
from sternhalma.server.storage.passkey_rows import PasskeyRow
from sternhalma.server.storage.schema import PlayerRow, RatingRow, TableRow
from sternhalma.server.storage.store import Store
from sternhalma.server.storage.tokens import hash_secret, new_secret

#: The name a deleted account's games show.
DELETED = "deleted"


@dataclass(frozen=True)
class AccountRules:
    #: Refused log-ins an account, and an address, may have in ``window`` seconds.
    per_account: int = 5
    per_address: int = 20
    window: float = 900.0


@dataclass(frozen=True)
class Session:
    """A logged-in browser: the cookie's token and the play secret the browser keeps
    as its identity (both only ever handed out here, once)."""

    token: str
    player: str
    nickname: str
    secret: str


@dataclass(frozen=True)
class Me:
    """Who a session cookie belongs to."""

    player: str
    nickname: str
    account: bool


class TooManyAttempts(TableError):
    def __init__(self, minutes: int) -> None:
        super().__init__(
            "too-many-attempts",
            f"too many wrong passwords; try again in {minutes} minutes",
        )


class WrongPassword(TableError):
    def __init__(self) -> None:
        super().__init__("wrong-password", "that nickname and password do not match")


class Accounts:
    """Accounts on the store's database."""

    def __init__(self, store: Store, rules: AccountRules | None = None) -> None:
        self.store = store
        self.rules = rules or AccountRules()

    # -- sessions --------------------------------------------------------------------
    async def me(self, token: str | None) -> Me | None:
        """The player whose session ``token`` is (None: no live session)."""
        if not token:
            return None
        now = datetime.now(UTC)
        async with self.store.engine.connect() as connection:
            row = (
                await connection.execute(
                    select(PlayerRow.id, PlayerRow.nickname, AccountRow.player_id)
                    .join(SessionRow, SessionRow.player_id == PlayerRow.id)
                    .outerjoin(AccountRow, AccountRow.player_id == PlayerRow.id)
                    .where(
                        SessionRow.token_hash == hash_secret(token),
                        SessionRow.seen_at > now - timedelta(days=SESSION_DAYS),
                    )
                )
            ).first()
        if row is None:
            return None
        return Me(str(row[0]), str(row[1]), row[2] is not None)

    async def logout(self, token: str | None) -> None:
        """End the session ``token`` (its play secret with it)."""
        if not token:
            return
        async with self.store.writer.begin() as connection:
            await connection.execute(
                delete(SessionRow).where(SessionRow.token_hash == hash_secret(token))
            )

    # -- making an account -----------------------------------------------------------
    async def register(
        self, nickname: str, password: object, identity: str | None, address: str
    ) -> Session:
        """Protect ``nickname`` with ``password``: the player of ``identity`` (keeping its
        ratings and games), or a new player. The browser is logged in at once; the
        identity's old secret no longer sits down (the session's play secret does)."""
        password = check_password(password)
        if nickname_key(nickname) == nickname_key(DELETED):
            raise TableError("nickname", f"{DELETED!r} is what deleted accounts are called")
        found = await self.store.identity(nickname, identity, address)
        hashed = await hash_password(password)
        now = datetime.now(UTC)
        session = _new_session(found.id, found.nickname)
        async with self.store.writer.begin() as connection:
            await connection.run_sync(self._register, found, hashed, session, now)
        return session

    def _register(
        self, connection: Connection, found: Identity, hashed: str, session: Session, now: datetime
    ) -> None:
        claim(connection, found, self.store.identities, now)
        taken = connection.execute(
            select(AccountRow.player_id).where(AccountRow.player_id == found.id)
        ).first()
        if taken is not None:
            raise TableError("account", "this player has an account already: log in instead")
        connection.execute(
            insert(AccountRow).values(player_id=found.id, password_hash=hashed, created_at=now)
        )
        connection.execute(
            update(PlayerRow)
            .where(PlayerRow.id == found.id)
            .values(secret_hash=hash_secret(new_secret()))
        )
        _insert_session(connection, session, now)

    # -- logging in ------------------------------------------------------------------
    async def login(self, nickname: object, password: object, address: str) -> Session:
        """A new session for the account called ``nickname``, if ``password`` is its
        password and neither the account nor the address has had too many wrong ones."""
        if not isinstance(nickname, str) or not isinstance(password, str):
            raise TableError("login", 'send {"nickname": ..., "password": ...}')
        now = datetime.now(UTC)
        by_address = "address:" + self.store.hash_address(address)
        async with self.store.engine.connect() as connection:
            row = (
                await connection.execute(
                    select(PlayerRow.id, PlayerRow.nickname, AccountRow.password_hash)
                    .join(AccountRow, AccountRow.player_id == PlayerRow.id)
                    .where(PlayerRow.name_key == nickname_key(" ".join(nickname.split())[:64]))
                )
            ).first()
            keys = [by_address] + ([] if row is None else ["player:" + str(row[0])])
            await connection.run_sync(self._check_attempts, keys, now)
        stored = None if row is None else str(row[2])
        if not await verify_password(stored, password[:1000]):
            await self._failed(keys, now)
            raise WrongPassword()
        assert row is not None
        player = str(row[0])
        session = _new_session(player, str(row[1]))
        rehashed = await hash_password(password) if needs_rehash(str(row[2])) else None
        async with self.store.writer.begin() as connection:
            await connection.execute(
                delete(LoginFailureRow).where(LoginFailureRow.key == "player:" + player)
            )
            if rehashed is not None:
                await connection.execute(
                    update(AccountRow)
                    .where(AccountRow.player_id == player)
                    .values(password_hash=rehashed)
                )
            await connection.run_sync(_insert_session, session, now)
        return session

    def _check_attempts(self, connection: Connection, keys: list[str], now: datetime) -> None:
        """TooManyAttempts when a key (the address, the account) is over its limit."""
        since = now - timedelta(seconds=self.rules.window)
        for key in keys:
            count, first = connection.execute(
                select(func.count(), func.min(LoginFailureRow.at)).where(
                    LoginFailureRow.key == key, LoginFailureRow.at > since
                )
            ).one()
            limit = self.rules.per_address if key.startswith("address:") else self.rules.per_account
            if count >= limit:
                first = first if first.tzinfo is not None else first.replace(tzinfo=UTC)
                wait = (first - since).total_seconds()
                raise TooManyAttempts(max(1, round(wait / 60 + 0.5)))

    async def _failed(self, keys: list[str], now: datetime) -> None:
        async with self.store.writer.begin() as connection:
            await connection.execute(
                insert(LoginFailureRow), [{"key": key, "at": now} for key in keys]
            )
            # Old failures say nothing any more.
            await connection.execute(
                delete(LoginFailureRow).where(
                    LoginFailureRow.at < now - timedelta(seconds=self.rules.window * 4)
                )
            )

    async def confirm_password(self, token: str | None, password: object, address: str) -> Me:
        """The session's account, once ``password`` proves it is still its owner (a
        wrong one counts as a refused log-in): asked again before anything that
        changes how one logs in, so a session left open is not enough."""
        me = await self.me(token)
        if me is None or not me.account:
            raise TableError("login", "log in first")
        if not isinstance(password, str):
            raise TableError("password", "type your password")
        now = datetime.now(UTC)
        keys = ["address:" + self.store.hash_address(address), "player:" + me.player]
        async with self.store.engine.connect() as connection:
            await connection.run_sync(self._check_attempts, keys, now)
            stored = (
                await connection.execute(
                    select(AccountRow.password_hash).where(AccountRow.player_id == me.player)
                )
            ).scalar_one()
        if not await verify_password(stored, password[:1000]):
            await self._failed(keys, now)
            raise WrongPassword()
        return me

    async def change_password(
        self, token: str | None, old: object, new: object, address: str
    ) -> None:
        """A new password; every other session of the account ends."""
        new = check_password(new)
        me = await self.confirm_password(token, old, address)
        hashed = await hash_password(new)
        assert token is not None
        async with self.store.writer.begin() as connection:
            await connection.execute(
                update(AccountRow)
                .where(AccountRow.player_id == me.player)
                .values(password_hash=hashed)
            )
            await connection.execute(
                delete(SessionRow).where(
                    SessionRow.player_id == me.player,
                    SessionRow.token_hash != hash_secret(token),
                )
            )

    # -- deleting --------------------------------------------------------------------
    async def delete(self, token: str | None, password: object, address: str) -> str:
        """Delete the account: its finished games stay, under the name "deleted"; its
        ratings, sessions and nickname go. Refused while it plays or waits at a table.
        Returns the player's id."""
        me = await self.confirm_password(token, password, address)
        async with self.store.writer.begin() as connection:
            await connection.run_sync(_delete, me.player)
        return me.player


def _new_session(player: str, nickname: str) -> Session:
    return Session(new_secret(), player, nickname, new_secret())


def _insert_session(connection: Connection, session: Session, now: datetime) -> None:
    connection.execute(
        insert(SessionRow).values(
            token_hash=hash_secret(session.token),
            player_id=session.player,
            secret_hash=hash_secret(session.secret),
            created_at=now,
            seen_at=now,
        )
    )


def player_tables(player: str) -> ColumnElement[bool]:
    """The condition "``player`` sits at the table" (seats are JSON text)."""
    return TableRow.seats.contains(json.dumps({"player": player})[1:-1])


def _delete(connection: Connection, player: str) -> None:
    busy = connection.execute(
        select(func.count())
        .select_from(TableRow)
        .where(player_tables(player), TableRow.status.in_(("waiting", "playing")))
    ).scalar_one()
    if busy:
        raise TableError(
            "playing", "finish or leave your games first; then the account can be deleted"
        )
    rows = connection.execute(
        select(TableRow.id, TableRow.seats).where(player_tables(player))
    ).all()
    for table_id, seats_text in rows:
        seats = json.loads(seats_text)
        for seat in seats:
            if isinstance(seat, dict) and seat.get("player") == player:
                seat["nickname"] = DELETED
                seat.pop("address_hash", None)
        connection.execute(
            update(TableRow).where(TableRow.id == table_id).values(seats=json.dumps(seats))
        )
    connection.execute(delete(SessionRow).where(SessionRow.player_id == player))
    connection.execute(delete(PasskeyRow).where(PasskeyRow.player_id == player))
    connection.execute(delete(AccountRow).where(AccountRow.player_id == player))
    connection.execute(delete(RatingRow).where(RatingRow.player_id == player))
    connection.execute(
        update(PlayerRow)
        .where(PlayerRow.id == player)
        .values(
            nickname=DELETED,
            name_key=None,
            address_hash=None,
            secret_hash=hash_secret(new_secret()),
        )
    )
