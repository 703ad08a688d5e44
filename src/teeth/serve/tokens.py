"""Push tokens: random, shown once, stored only as a SHA-256 digest."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass

PREFIX = "teeth_"


@dataclass(frozen=True)
class Token:
    """A push token as the server knows it: its name, and the targets it may push (empty: any)."""

    name: str
    targets: tuple[str, ...] = ()

    def may_push(self, target: str) -> bool:
        return not self.targets or target in self.targets


def new_token() -> str:
    """A fresh token: 256 random bits, URL-safe."""
    return PREFIX + secrets.token_urlsafe(32)


def token_digest(token: str) -> str:
    """What the database keeps. A token has 256 random bits, so one SHA-256 is as strong as a slow hash here."""
    return hashlib.sha256(token.encode()).hexdigest()


def same_digest(a: str, b: str) -> bool:
    return hmac.compare_digest(a, b)


def bearer(header: str | None) -> str | None:
    """The token of an `Authorization: Bearer T` header, or None."""
    scheme, _, value = (header or "").partition(" ")
    return value.strip() or None if scheme.lower() == "bearer" else None
