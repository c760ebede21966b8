"""Passkeys (WebAuthn, the ``webauthn`` library): a second way to log in to an account.

A logged-in player adds a passkey (the registration ceremony); any browser then logs in
with it without a nickname (the authentication ceremony: passkeys are discoverable
credentials) and gets the same session as a password log-in. Each ceremony's challenge
is a row (storage/passkey_rows.py) that the answer takes: once, within
CHALLENGE_SECONDS, at the relying party id and origin it was made for. Refused
passkey log-ins count against the same limits as wrong passwords.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import delete, insert, select, update
from webauthn import (
    generate_authentication_options,
    generate_registration_options,
    verify_authentication_response,
    verify_registration_response,
)
from webauthn.helpers import base64url_to_bytes, bytes_to_base64url, options_to_json_dict
from webauthn.helpers.exceptions import WebAuthnException
from webauthn.helpers.structs import (
    AuthenticatorSelectionCriteria,
    PublicKeyCredentialDescriptor,
    ResidentKeyRequirement,
    UserVerificationRequirement,
)

from sternhalma.server.accounts.service import Accounts, Session, _insert_session, _new_session
from sternhalma.server.protocol import TableError
from sternhalma.server.storage.account_rows import AccountRow, LoginFailureRow
from sternhalma.server.storage.passkey_rows import PasskeyChallengeRow, PasskeyRow
from sternhalma.server.storage.schema import PlayerRow
from sternhalma.server.storage.tokens import new_secret

#: How long a ceremony may take, from the options to the browser's answer.
CHALLENGE_SECONDS = 300
#: Passkeys one account may have.
MAX_PASSKEYS = 20
RP_NAME = "Sternhalma"
_UV = UserVerificationRequirement.REQUIRED


@dataclass(frozen=True)
class Ceremony:
    """A ceremony's challenge row, as its answer took it."""

    challenge: str
    rp_id: str
    origin: str
    player_id: str | None
    name: str | None
    expires_at: datetime


class PasskeyRefused(TableError):
    """The browser's answer did not prove the passkey (a wrong signature, challenge,
    origin, a counter that went back)."""

    def __init__(self, reason: str) -> None:
        super().__init__("passkey-refused", f"that passkey answer was refused ({reason[:120]})")


def _expired() -> TableError:
    return TableError(
        "passkey-expired", "this passkey request has expired or was answered already; try again"
    )


def _credential(value: object) -> dict[str, Any]:
    if not isinstance(value, dict) or not isinstance(value.get("id"), str):
        raise TableError("passkey", 'send {"ceremony": ..., "credential": the browser\'s answer}')
    return value


class Passkeys:
    """The ceremonies, on the accounts' database and limits."""

    def __init__(self, accounts: Accounts) -> None:
        self.accounts = accounts
        self.store = accounts.store

    # -- the list ----------------------------------------------------------------------
    async def mine(self, token: str | None) -> list[dict[str, Any]]:
        """The session's passkeys, oldest first."""
        player = await self._player(token)
        async with self.store.engine.connect() as connection:
            rows = (
                await connection.execute(
                    select(
                        PasskeyRow.id, PasskeyRow.name, PasskeyRow.created_at, PasskeyRow.used_at
                    )
                    .where(PasskeyRow.player_id == player)
                    .order_by(PasskeyRow.created_at, PasskeyRow.id)
                )
            ).all()
        return [
            {"id": row[0], "name": row[1], "created": _iso(row[2]), "used": _iso(row[3])}
            for row in rows
        ]

    async def remove(self, token: str | None, passkey: object) -> None:
        player = await self._player(token)
        if not isinstance(passkey, str):
            raise TableError("passkey", 'send {"id": the passkey\'s id}')
        async with self.store.writer.begin() as connection:
            gone = await connection.execute(
                delete(PasskeyRow).where(PasskeyRow.id == passkey, PasskeyRow.player_id == player)
            )
        if gone.rowcount != 1:
            raise TableError("passkey-unknown", "you have no such passkey")

    # -- adding one --------------------------------------------------------------------
    async def begin_register(
        self,
        token: str | None,
        password: object,
        name: object,
        rp_id: str,
        origin: str,
        address: str,
    ) -> dict[str, Any]:
        """The options for ``navigator.credentials.create`` and the ceremony's id, once
        the account's password is given again (a passkey is a new way in)."""
        me = await self.accounts.confirm_password(token, password, address)
        now = datetime.now(UTC)
        label = _name(name)
        async with self.store.engine.connect() as connection:
            have = (
                await connection.execute(
                    select(PasskeyRow.id).where(PasskeyRow.player_id == me.player)
                )
            ).all()
        if len(have) >= MAX_PASSKEYS:
            raise TableError("passkey", f"an account has at most {MAX_PASSKEYS} passkeys")
        options = generate_registration_options(
            rp_id=rp_id,
            rp_name=RP_NAME,
            user_name=me.nickname,
            user_id=me.player.encode(),
            timeout=CHALLENGE_SECONDS * 1000,
            authenticator_selection=AuthenticatorSelectionCriteria(
                resident_key=ResidentKeyRequirement.REQUIRED, user_verification=_UV
            ),
            exclude_credentials=[
                PublicKeyCredentialDescriptor(id=base64url_to_bytes(row[0])) for row in have
            ],
        )
        ceremony = await self._remember(
            "register", options.challenge, rp_id, origin, now, me.player, label
        )
        return {"ceremony": ceremony, "options": options_to_json_dict(options)}

    async def finish_register(
        self, token: str | None, ceremony: object, credential: object
    ) -> dict[str, Any]:
        """Check the browser's new credential against the ceremony and keep it."""
        answer = _credential(credential)
        row = await self._take(ceremony, "register")
        me = await self.accounts.me(token)
        if me is None or me.player != row.player_id:
            raise TableError("login", "log in first")
        try:
            verified = verify_registration_response(
                credential=answer,
                expected_challenge=base64url_to_bytes(row.challenge),
                expected_rp_id=row.rp_id,
                expected_origin=row.origin,
                require_user_verification=True,
            )
        except (WebAuthnException, ValueError, TypeError, KeyError) as error:
            raise PasskeyRefused(str(error) or type(error).__name__) from error
        passkey = bytes_to_base64url(verified.credential_id)
        now = datetime.now(UTC)
        async with self.store.writer.begin() as connection:
            if (
                await connection.execute(select(PasskeyRow.id).where(PasskeyRow.id == passkey))
            ).first() is not None:
                raise TableError("passkey", "this passkey is added already")
            await connection.execute(
                insert(PasskeyRow).values(
                    id=passkey,
                    player_id=me.player,
                    public_key=verified.credential_public_key,
                    sign_count=verified.sign_count,
                    name=row.name or "",
                    created_at=now,
                )
            )
        return {"id": passkey, "name": row.name or "", "created": _iso(now), "used": None}

    # -- logging in --------------------------------------------------------------------
    async def begin_login(self, rp_id: str, origin: str, address: str) -> dict[str, Any]:
        """The options for ``navigator.credentials.get``: any passkey of this site (the
        browser offers those it has), so no nickname is asked for."""
        now = datetime.now(UTC)
        async with self.store.engine.connect() as connection:
            await connection.run_sync(self.accounts._check_attempts, [self._address(address)], now)
        options = generate_authentication_options(
            rp_id=rp_id, timeout=CHALLENGE_SECONDS * 1000, user_verification=_UV
        )
        ceremony = await self._remember("login", options.challenge, rp_id, origin, now)
        return {"ceremony": ceremony, "options": options_to_json_dict(options)}

    async def finish_login(self, ceremony: object, credential: object, address: str) -> Session:
        """A new session for the passkey's account, as a password log-in makes one."""
        answer = _credential(credential)
        row = await self._take(ceremony, "login")
        now = datetime.now(UTC)
        keys = [self._address(address)]
        async with self.store.engine.connect() as connection:
            found = (
                await connection.execute(
                    select(
                        PasskeyRow.player_id,
                        PasskeyRow.public_key,
                        PasskeyRow.sign_count,
                        PlayerRow.nickname,
                    )
                    .join(AccountRow, AccountRow.player_id == PasskeyRow.player_id)
                    .join(PlayerRow, PlayerRow.id == PasskeyRow.player_id)
                    .where(PasskeyRow.id == answer["id"][:1400])
                )
            ).first()
            if found is not None:
                keys.append("player:" + str(found[0]))
            await connection.run_sync(self.accounts._check_attempts, keys, now)
        if found is None:
            await self.accounts._failed(keys, now)
            raise TableError(
                "passkey-unknown",
                "this passkey belongs to no account here (it may have been removed)",
            )
        player, public_key, count, nickname = str(found[0]), found[1], int(found[2]), str(found[3])
        try:
            handle = (answer.get("response") or {}).get("userHandle")
            if handle and base64url_to_bytes(handle) != player.encode():
                raise PasskeyRefused("the passkey names another account")
            verified = verify_authentication_response(
                credential=answer,
                expected_challenge=base64url_to_bytes(row.challenge),
                expected_rp_id=row.rp_id,
                expected_origin=row.origin,
                credential_public_key=public_key,
                credential_current_sign_count=count,
                require_user_verification=True,
            )
        except (WebAuthnException, ValueError, TypeError, KeyError, AttributeError) as error:
            await self.accounts._failed(keys, now)
            if isinstance(error, PasskeyRefused):
                raise
            raise PasskeyRefused(str(error) or type(error).__name__) from error
        session = _new_session(player, nickname)
        async with self.store.writer.begin() as connection:
            counted = await connection.execute(
                update(PasskeyRow)
                .where(PasskeyRow.id == answer["id"], PasskeyRow.sign_count == count)
                .values(sign_count=verified.new_sign_count, used_at=now)
            )
            if counted.rowcount != 1:  # another log-in with this passkey came first
                raise PasskeyRefused("the passkey was used at the same time elsewhere")
            await connection.execute(
                delete(LoginFailureRow).where(LoginFailureRow.key == "player:" + player)
            )
            await connection.run_sync(_insert_session, session, now)
        return session

    # -- challenges --------------------------------------------------------------------
    async def _remember(
        self,
        kind: str,
        challenge: bytes,
        rp_id: str,
        origin: str,
        now: datetime,
        player: str | None = None,
        name: str | None = None,
    ) -> str:
        ceremony = new_secret()
        async with self.store.writer.begin() as connection:
            # Ceremonies nobody finished say nothing any more.
            await connection.execute(
                delete(PasskeyChallengeRow).where(PasskeyChallengeRow.expires_at < now)
            )
            await connection.execute(
                insert(PasskeyChallengeRow).values(
                    id=ceremony,
                    kind=kind,
                    challenge=bytes_to_base64url(challenge),
                    rp_id=rp_id,
                    origin=origin,
                    player_id=player,
                    name=name,
                    expires_at=now + timedelta(seconds=CHALLENGE_SECONDS),
                )
            )
        return ceremony

    async def _take(self, ceremony: object, kind: str) -> Ceremony:
        """The ceremony's challenge, deleted as it is read: a second answer finds none."""
        if not isinstance(ceremony, str):
            raise _expired()
        async with self.store.writer.begin() as connection:
            row = (
                await connection.execute(
                    select(
                        PasskeyChallengeRow.challenge,
                        PasskeyChallengeRow.rp_id,
                        PasskeyChallengeRow.origin,
                        PasskeyChallengeRow.player_id,
                        PasskeyChallengeRow.name,
                        PasskeyChallengeRow.expires_at,
                    ).where(
                        PasskeyChallengeRow.id == ceremony[:64], PasskeyChallengeRow.kind == kind
                    )
                )
            ).first()
            if row is None:
                raise _expired()
            taken = await connection.execute(
                delete(PasskeyChallengeRow).where(PasskeyChallengeRow.id == ceremony)
            )
        found = Ceremony(*row)
        expires = found.expires_at
        if expires.tzinfo is None:
            expires = expires.replace(tzinfo=UTC)
        if taken.rowcount != 1 or expires < datetime.now(UTC):
            raise _expired()
        return found

    async def _player(self, token: str | None) -> str:
        me = await self.accounts.me(token)
        if me is None or not me.account:
            raise TableError("login", "log in first")
        return me.player

    def _address(self, address: str) -> str:
        return "address:" + self.store.hash_address(address)


def _name(value: object) -> str:
    """A passkey's name as the player gave it ("": none; the page shows its date)."""
    if value is None:
        return ""
    if not isinstance(value, str):
        raise TableError("passkey", "a passkey's name is text")
    name = " ".join(value.split())
    if len(name) > 64:
        raise TableError("passkey", "a passkey's name has at most 64 characters")
    return name


def _iso(value: datetime | None) -> str | None:
    if value is None:
        return None
    return (value if value.tzinfo is not None else value.replace(tzinfo=UTC)).isoformat()
