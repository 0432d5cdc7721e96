"""Bot tokens sealed for the database: bound to their workspace, under one key or several.

A sealed token is `zq2:` and a Fernet token (AES-128-CBC + HMAC-SHA256) of `<team>\\n<token>`.
Fernet's HMAC covers the team id, so a sealed token copied into another workspace's row opens to
the wrong team and is refused (`Moved`) instead of being used there. The team alone is bound, not
the enterprise: a workspace keeps its id when it joins (or leaves) an Enterprise Grid.

ZEROQUIZ_TOKEN_KEY holds one key or several, comma-separated, the newest first: the first seals,
every one opens, so a key can be rotated without a reinstall (docs/operations.md). Tokens sealed
before binding (a bare Fernet token of the bot token) still open; like tokens opened by an older
key they come back `stale`, and the caller seals them again with the first key.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from cryptography.fernet import Fernet, InvalidToken

from adapters.runtime import ConfigError

PREFIX = "zq2:"
VARIABLE = "ZEROQUIZ_TOKEN_KEY"
_HOW = (
    "expected Fernet keys, newest first, comma-separated: 32 url-safe base64 bytes each, made "
    "with `python -c 'from cryptography.fernet import Fernet; print(Fernet.generate_key()"
    ".decode())'`"
)


class Unopenable(Exception):
    """No key of ZEROQUIZ_TOKEN_KEY opens this sealed token (or it was tampered with)."""


class Moved(Exception):
    """The sealed token opens, but it was sealed for another workspace's row."""


class Opened(NamedTuple):
    token: str = ""
    stale: bool = False  # opened by an older key, or of the unbound format: seal it again


class Sealer:
    def __init__(self, keys: Sequence[Fernet]) -> None:
        if not keys:
            raise ValueError("at least one key")
        self._keys = tuple(keys)

    @classmethod
    def from_setting(cls, value: str) -> Sealer:
        """The keys of ZEROQUIZ_TOKEN_KEY; ConfigError naming the variable (never a value)."""
        parts = [part.strip() for part in value.split(",")]
        if not parts or any(not part for part in parts):
            raise ConfigError(f"{VARIABLE} is malformed (an empty entry; {_HOW})")
        keys: list[Fernet] = []
        for n, part in enumerate(parts, 1):
            try:
                keys.append(Fernet(part.encode()))
            except (ValueError, TypeError):
                where = f"entry {n} of {len(parts)}" if len(parts) > 1 else "the key"
                raise ConfigError(f"{VARIABLE} is malformed ({where}: {_HOW})") from None
        return cls(keys)

    @property
    def keys(self) -> int:
        return len(self._keys)

    def seal(self, team: str, token: str) -> str:
        """The token bound to `team`, sealed with the first (newest) key."""
        return PREFIX + self._keys[0].encrypt(f"{team}\n{token}".encode()).decode()

    def open(self, team: str, sealed: str) -> Opened:
        """The token of `team`'s row; Unopenable or Moved when it must not be used."""
        bound = sealed.startswith(PREFIX)
        raw = sealed.removeprefix(PREFIX).encode()
        for n, key in enumerate(self._keys):
            try:
                plain = key.decrypt(raw).decode()
            except (InvalidToken, UnicodeDecodeError):
                continue
            if not bound:
                return Opened(plain, stale=True)
            owner, _, token = plain.partition("\n")
            if owner != team:
                raise Moved(owner)
            return Opened(token, stale=n > 0)
        raise Unopenable()
