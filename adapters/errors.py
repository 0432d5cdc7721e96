"""The setting errors every command shares, apart from the serve runtime (adapters/runtime.py)
so that `zeroquiz play` can refuse a setting without importing aiohttp and Prometheus."""

from __future__ import annotations


class ConfigError(Exception):
    """A missing or malformed setting; the message names the variable, never its value."""


class SurfaceUnavailable(ConfigError):
    """The platform could not be reached at start-up (a network fault, a timeout): unlike the
    other ConfigErrors, trying again later may work."""
