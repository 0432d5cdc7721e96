"""The question bank: YAML files validated into immutable Question values."""

from bot.bank.loader import Bank, BankError, Problem, bundled_paths, load_bank

__all__ = ["Bank", "BankError", "Problem", "bundled_paths", "load_bank"]
