"""ZeroQuiz core: platform-agnostic quiz logic. Never imports a chat platform library."""

__version__ = "0.1.0"
