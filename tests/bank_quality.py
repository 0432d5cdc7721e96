"""Can a learner guess the key without knowing the subject? Measures over hand-written questions.

Three tells a test-wise reader uses: the key is the longest option; one option is much longer than
the others; the key alone repeats a distinctive word of the prompt. Run it on files while writing
questions (`python tests/bank_quality.py questions/55_fsdp2.yaml`); tests/core/test_bank_teaching.py
holds the whole bank to the limits.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass

from bot.model import Lang, Question

LONGEST_KEY_SHARE = 0.28  # at most this share of questions has the key as the strictly longest
RATIO = 1.25  # no option longer than this times the mean length of the others

# Words a prompt and its key may share without telling anything: English glue and the subject's
# everyday words, which every option of a question on the subject uses too.
_COMMON_WORDS = """
    the and for with that this what which when where who why how does did are was were has have
    had not but its their them they then than from into onto over under each every one two three
    four per all any only also more most less much many some same other such can could would should
    will may might must use used uses using your you our there here these those about after before
    between while whole full part parts first last next true false yes no very just like into
    gpu gpus rank ranks node nodes model models parameter parameters param params gradient gradients
    grad grads optimizer optimizers state states stage stages zero memory shard shards sharded
    sharding training train trains step steps layer layers forward backward pass copy copies byte
    bytes size data parallel parallelism fsdp deepspeed pytorch torch paper config setting value
    values number numbers time times keep keeps kept hold holds held need needs needed total each
    option options answer question run runs running give gives given make makes made set sets
"""
COMMON = frozenset(_COMMON_WORDS.split())
WORD = re.compile(r"[a-z0-9_]+(?:[.\-][a-z0-9_]+)*")
NUMBER = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)?(?![\w])")  # 20, 31.4: not fp16's 16


@dataclass(frozen=True)
class Tells:
    longest_key: list[str]  # ids whose key is strictly the longest option
    shortest_key: list[str]  # ids whose key is strictly the shortest (the opposite habit)
    too_long: list[tuple[str, int, float]]  # (id, option index in file order, its ratio)
    echoes: list[tuple[str, str]]  # (id, the prompt's word only the key repeats)
    total: int

    @property
    def longest_share(self) -> float:
        return len(self.longest_key) / self.total if self.total else 0.0

    @property
    def shortest_share(self) -> float:
        return len(self.shortest_key) / self.total if self.total else 0.0


def key_is_longest(q: Question, lang: Lang = "en") -> bool:
    sizes = [len(o.get(lang)) for o in q.options]
    key = sizes[q.answer]
    return all(key > size for i, size in enumerate(sizes) if i != q.answer)


def key_is_shortest(q: Question, lang: Lang = "en") -> bool:
    sizes = [len(o.get(lang)) for o in q.options]
    key = sizes[q.answer]
    return all(key < size for i, size in enumerate(sizes) if i != q.answer)


def ratios(q: Question, lang: Lang = "en") -> list[float]:
    """Each option's length over the mean length of the others."""
    sizes = [len(o.get(lang)) for o in q.options]
    out = []
    for i, size in enumerate(sizes):
        others = [s for j, s in enumerate(sizes) if j != i]
        out.append(size / (sum(others) / len(others)))
    return out


def echoed_words(q: Question) -> list[str]:
    """Distinctive words of the prompt that the key repeats and no other option does, and a
    number of the prompt that only the key gives (a prompt that states its own answer)."""
    key = q.options[q.answer].en.lower()
    others = [o.en.lower() for i, o in enumerate(q.options) if i != q.answer]
    found = [
        n
        for n in dict.fromkeys(NUMBER.findall(q.prompt.en))
        if n in NUMBER.findall(key) and not any(n in NUMBER.findall(o) for o in others)
    ]
    for word in dict.fromkeys(WORD.findall(q.prompt.en.lower())):
        if len(word) < 3 or word in COMMON or word.isdigit():
            continue
        if word in key and not any(word in other for other in others):
            found.append(word)
    return found


def measure(questions: Iterable[Question]) -> Tells:
    questions = list(questions)
    longest = [q.id for q in questions if key_is_longest(q)]
    shortest = [q.id for q in questions if key_is_shortest(q)]
    too_long = [
        (q.id, i, round(r, 2)) for q in questions for i, r in enumerate(ratios(q)) if r > RATIO
    ]
    echoes = [(q.id, w) for q in questions for w in echoed_words(q)]
    return Tells(longest, shortest, too_long, echoes, len(questions))


def missing_reasons(q: Question) -> list[str]:
    """Which of a question's wrong options give no reason, as 'option N (lang)'."""
    out = []
    for i in range(len(q.options)):
        if i == q.answer:
            continue
        reason = q.reason(i)
        for lang in ("en", "id"):
            if reason is None or not reason.get(lang).strip():
                out.append(f"option {i + 1} ({lang})")
    return out


def main(paths: list[str]) -> int:
    from bot.bank.loader import load_bank

    bank = load_bank(paths) if paths else load_bank()
    chosen = [q for q in bank.questions if not paths or any(p in q.origin for p in paths)]
    tells = measure(chosen)
    print(
        f"{tells.total} questions; key strictly longest in {len(tells.longest_key)}"
        f" ({tells.longest_share:.0%}, limit {LONGEST_KEY_SHARE:.0%}); strictly shortest in"
        f" {len(tells.shortest_key)} ({tells.shortest_share:.0%})"
    )
    for qid in tells.longest_key:
        print(f"  longest key: {qid}")
    for qid, i, r in tells.too_long:
        print(f"  option {i + 1} of {qid} is {r}x the others' mean length (limit {RATIO})")
    for qid, word in tells.echoes:
        print(f"  echo: only the key of {qid} repeats the prompt's '{word}'")
    for q in chosen:
        for gap in missing_reasons(q):
            print(f"  no why: {q.id} {gap} ({q.origin})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
