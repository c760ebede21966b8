"""The rows of passkeys (migration 0010_passkeys): the WebAuthn credentials that log an
account in, and the challenges of ceremonies under way. Challenges are rows, not
process memory, so a ceremony begun on one server process can end on another; each is
taken (deleted) by the first answer to it, so an answer cannot be replayed."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, DateTime, ForeignKey, LargeBinary, String
from sqlalchemy.orm import Mapped, mapped_column

from sternhalma.server.storage.schema import Base


class PasskeyRow(Base):
    """A passkey of an account: the authenticator keeps the private key, we keep the
    public one and how many times it has signed (a count that goes back is a clone)."""

    __tablename__ = "passkeys"

    #: The credential id, base64url (at most 1023 bytes: 1364 characters).
    id: Mapped[str] = mapped_column(String(1400), primary_key=True)
    player_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("players.id", ondelete="CASCADE"), index=True
    )
    #: The COSE public key as the authenticator gave it.
    public_key: Mapped[bytes] = mapped_column(LargeBinary)
    sign_count: Mapped[int] = mapped_column(BigInteger)
    #: What the player called it ("": unnamed; the list on /account shows its date).
    name: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    used_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class PasskeyChallengeRow(Base):
    """A ceremony under way: the challenge the browser's answer must sign, where (the
    relying party id and origin), for whom (registration: the logged-in player), until
    when."""

    __tablename__ = "passkey_challenges"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    #: "register" or "login".
    kind: Mapped[str] = mapped_column(String(16))
    challenge: Mapped[str] = mapped_column(String(100))
    rp_id: Mapped[str] = mapped_column(String(255))
    origin: Mapped[str] = mapped_column(String(300))
    player_id: Mapped[str | None] = mapped_column(
        String(32), ForeignKey("players.id", ondelete="CASCADE"), nullable=True
    )
    name: Mapped[str | None] = mapped_column(String(64), nullable=True)
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)
