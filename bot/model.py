"""Domain values shared by the bank, the core and the adapters."""

from __future__ import annotations

from typing import Literal, NamedTuple

Lang = Literal["en", "id"]
LANGS: tuple[Lang, ...] = ("en", "id")
DEFAULT_LANG: Lang = "en"


def parse_lang(value: str) -> Lang | None:
    """Map user input to a supported language code, or None when unsupported."""
    v = value.strip().lower()
    if v in ("en", "english"):
        return "en"
    if v in ("id", "indonesian", "indonesia", "bahasa"):
        return "id"
    return None


class Text(NamedTuple):
    """One piece of user-facing content in every supported language."""

    en: str
    id: str

    def get(self, lang: Lang) -> str:
        return self.id if lang == "id" else self.en


class MemoryChart(NamedTuple):
    """Per-GPU model states of a drawn memory question for plain DP and ZeRO stages 1-3 (GB),
    so the explanation can show the stage it asks about beside the others."""

    psi: float  # billions of parameters
    nd: float  # data-parallel GPUs
    bars: tuple[float, float, float, float]  # plain DP, stage 1, stage 2, stage 3
    marked: int  # index into bars: the stage the question asks about


class Tolerance(NamedTuple):
    """How far a typed number may be from the answer and still be right, as a template states it:
    an amount in the question's unit, or a fraction of the answer (`relative`, from "2%")."""

    amount: float
    relative: bool = False


class Numeric(NamedTuple):
    """A generated question's answer as a number, so that it can be typed (bot/typed.py): the
    exact value and unit, the template's tolerance (None: the one the shown rounding implies),
    and what each named mistake gives: (value, the option it shows as in file order or -1, why)."""

    value: float
    unit: str
    tolerance: Tolerance | None = None
    mistakes: tuple[tuple[float, int, Text | None], ...] = ()


class Question(NamedTuple):
    id: str
    prompt: Text
    options: tuple[Text, ...]
    answer: int  # index into options, in file order
    explanation: Text
    source: str | None = None
    tags: tuple[str, ...] = ()
    difficulty: int | None = None
    origin: str = ""  # "file:line" where it was defined, for messages to authors
    chart: MemoryChart | None = None  # generated memory questions: the stages side by side
    # Why each option is wrong, in file order (None for the key, whose reason is the explanation,
    # and for an option a team pack gave no reason); empty when no option has one.
    reasons: tuple[Text | None, ...] = ()
    number: Numeric | None = None  # generated questions: the answer may be typed as a number

    def reason(self, option: int) -> Text | None:
        """Why this option (an index in file order) is wrong; None for the key or when not given."""
        if option == self.answer or not 0 <= option < len(self.reasons):
            return None
        return self.reasons[option]


class ChannelRef(NamedTuple):
    """Where a round lives. IDs from platforms stay opaque strings."""

    platform: str
    team: str
    channel: str

    def __str__(self) -> str:
        """`slack T1/C1` in a log line, rather than the dataclass's repr."""
        return f"{self.platform} {self.team}/{self.channel}"


class UserRef(NamedTuple):
    """A person on a platform. A provisional name (a handle, before the platform said the display
    name) is stored only where no name is known yet."""

    platform: str
    team: str
    user: str
    display_name: str = ""
    provisional_name: bool = False

    @property
    def name(self) -> str:
        return self.display_name or self.user


class TeamRef(NamedTuple):
    platform: str
    team: str


# Leaderboards: the periods they cover, and one person's line, as the store computes it.
Period = Literal["all", "week", "month"]
PERIODS: tuple[Period, ...] = ("week", "month", "all")


class LeaderRow(NamedTuple):
    rank: int
    user: str
    name: str
    points: int
    correct: int
    answered: int


LETTERS = "ABCDE"
