"""The question bank: YAML files validated into immutable Question values.

`load_bank` (bot/bank/loader.py) is imported on first use: it brings PyYAML and the checker,
which a start whose bank comes from the cache (bot/bank/cache.py) never needs.
"""

from typing import TYPE_CHECKING, Any

from bot.bank.bank import Bank, BankError, Problem, bundled_paths

if TYPE_CHECKING:
    from bot.bank.loader import load_bank

__all__ = ["Bank", "BankError", "Problem", "bundled_paths", "load_bank"]


def __getattr__(name: str) -> Any:
    if name == "load_bank":
        from bot.bank.loader import load_bank

        return load_bank
    raise AttributeError(f"module 'bot.bank' has no attribute {name!r}")
