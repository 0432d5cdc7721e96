"""The terminal adapter, driven exactly as the README's first command is: letters piped on stdin."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

from helpers import peek, poke

from bot.bank import load_bank

ROOT = Path(__file__).resolve().parents[2]


def zeroquiz() -> list[str]:
    script = Path(sys.executable).parent / "zeroquiz"
    return [str(script)] if script.exists() else [sys.executable, "-m", "adapters.cli"]


def terminal(
    command: str, args: list[str], stdin: str, cwd: Path, db: Path, tz: str | None = None
) -> subprocess.CompletedProcess[str]:
    """A real `zeroquiz <command>` child on the database `db`, its input piped (and the
    machine's local zone `tz`, if given)."""
    env = {k: v for k, v in os.environ.items() if k != "ZEROQUIZ_DB"}
    env["ZEROQUIZ_DB"] = str(db)
    if tz is not None:
        env["TZ"] = tz
    return run_zeroquiz([command, *args], cwd, env, stdin)


def run_zeroquiz(
    args: list[str], cwd: Path, env: dict[str, str], stdin: str = ""
) -> subprocess.CompletedProcess[str]:
    """`zeroquiz <args>` as a real child process, its input piped and its output captured. The
    timeout only catches a hang: a 500k-answer copy takes 20 s alone and more beside the other
    test worker on a loaded 2-core machine."""
    return subprocess.run(
        [*zeroquiz(), *args], input=stdin, capture_output=True, text=True, cwd=cwd, env=env,
        timeout=180,
    )  # fmt: skip


def play(args: list[str], stdin: str, cwd: Path, db: Path) -> subprocess.CompletedProcess[str]:
    return terminal("play", args, stdin, cwd, db)


def test_eight_letters_play_eight_questions_from_any_directory(tmp_path: Path) -> None:
    result = play([], "a\nb\nc\nd\na\nb\nc\nd\n", tmp_path, tmp_path / "q.sqlite3")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    for n in range(1, 9):
        assert f"Question {n}/8" in out
    assert out.count("Why: ") == 8
    assert "Final score: " in out and " of 8 right" in out
    assert "Local leaderboard" in out and "1. you" in out
    assert (tmp_path / "q.sqlite3").exists()


def test_invalid_letters_reprompt_and_eof_ends_cleanly(tmp_path: Path) -> None:
    result = play(["--count", "3", "--player", "ana"], "x\n\nZZ\nb\n", tmp_path, tmp_path / "q.db")
    assert result.returncode == 0, result.stderr
    # Each of the three lines that is no answer gets a hint; on a generated question a line that
    # isn't a letter is read as a number, and "ZZ" gets "type a number like …" instead.
    hints = result.stdout.count("Type one of the letters") + result.stdout.count("isn't a number")
    assert hints == 3, result.stdout
    assert "Question 2/3" in result.stdout
    assert "Final score: " in result.stdout and "of 1 right" in result.stdout
    assert "ana" in result.stdout


def test_a_zeroquiz_command_typed_at_the_prompt_is_answered_as_in_chat(tmp_path: Path) -> None:
    typed = "/stats\n/zeroquiz leaderboard all\n/nope\na\n"
    result = play(["--count", "1", "--player", "ana"], typed, tmp_path, tmp_path / "q.db")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "Your ZeroQuiz stats\n  Answered: 0\n" in out  # asked before the answer
    assert "ZeroQuiz leaderboard · all time\n  No scores yet for all time." in out
    assert "/zeroquiz help: this list" in out  # an unknown command gets the help, as in chat
    assert out.count("Your answer (") == 4  # asked again after each command
    assert out.count("Why: ") == 1 and "1. ana · " in out  # then the game went on


def test_indonesian_and_scores_accumulate_across_sessions(tmp_path: Path) -> None:
    db = tmp_path / "q.db"
    first = play(["--lang", "id", "--count", "2", "--player", "budi"], "a\na\n", tmp_path, db)
    assert first.returncode == 0, first.stderr
    assert "Soal 1/2" in first.stdout and "Penjelasan: " in first.stdout
    assert "Skor akhir" in first.stdout
    second = play(["--count", "2", "--player", "budi", "--db", str(db)], "b\nb\n", tmp_path, db)
    assert second.returncode == 0
    assert "· 2 right" in second.stdout or "4 right" in second.stdout or "right" in second.stdout
    # Questions are not repeated across sessions until the bank is exhausted.
    prompts_1 = [ln for ln in first.stdout.splitlines() if ln.startswith("Soal ")]
    assert len(prompts_1) == 2


def test_the_final_score_is_this_sessions_and_the_board_keeps_every_session(
    tmp_path: Path,
) -> None:
    """The score after the game agrees with the verdicts this session showed (the core counts
    it, as the board's); the local board adds every session of the player."""
    db = tmp_path / "q.db"
    first = play(["--count", "3", "--player", "ana"], "a\nb\nc\n", tmp_path, db)
    assert first.returncode == 0, first.stderr
    right_1 = first.stdout.count("✅ Correct!")
    assert f"Final score: {right_1} of 3 right, {10 * right_1} points." in first.stdout
    second = play(["--count", "3", "--player", "ana"], "d\n", tmp_path, db)  # then end of input
    assert second.returncode == 0, second.stderr
    right_2 = second.stdout.count("✅ Correct!")
    assert f"Final score: {right_2} of 1 right, {10 * right_2} points." in second.stdout
    right = right_1 + right_2
    assert f"1. ana · {10 * right} pts · {right} right" in second.stdout


def test_topic_and_level_play_only_those_questions(tmp_path: Path) -> None:
    from bot.bank import load_bank
    from bot.topics import Filter, matching

    bank = load_bank()
    chosen = [q for q in bank.questions if "zeropp" in q.tags and q.difficulty == 3]
    generated = [t for t in bank.templates if "zeropp" in t.tags and t.difficulty == 3]
    args = ["--topic", "zeropp", "--level", "sulit", "--count", "8"]
    result = play(args, "a\n" * 8, tmp_path, tmp_path / "q.db")
    assert result.returncode == 0, result.stderr
    total = len(matching(bank, Filter("zeropp", 3)))  # the count is cut to what matches
    assert total == len(chosen) + len(generated)  # a template counts once
    assert f"Question {total}/{total}" in result.stdout
    flat = " ".join(result.stdout.split())  # prompts are wrapped for the terminal
    assert all(" ".join(q.prompt.en.split()) in flat for q in chosen)
    assert generated and "GB of fp16 weights. With ZeRO-3" in flat  # the ZeRO++ template's draw


def test_an_unknown_topic_lists_the_topics_and_plays_nothing(tmp_path: Path) -> None:
    result = play(["--topic", "nosuch", "--lang", "id"], "a\n", tmp_path, tmp_path / "q.db")
    assert result.returncode == 1
    assert "Tidak ada topik" in result.stderr and "offload" in result.stderr  # an error: stderr
    assert "Question 1" not in result.stdout and "Soal 1" not in result.stdout


def review(
    args: list[str], stdin: str, cwd: Path, db: Path, tz: str | None = None
) -> subprocess.CompletedProcess[str]:
    return terminal("review", args, stdin, cwd, db, tz)


def test_review_brings_back_the_cards_played_and_leaves_scores_alone(tmp_path: Path) -> None:
    db = tmp_path / "q.db"
    played = play(["--count", "3", "--player", "ana"], "a\nb\nc\n", tmp_path, db)
    assert played.returncode == 0, played.stderr
    none = review(["--player", "ana"], "", tmp_path, db)
    assert none.returncode == 0, none.stderr
    assert "Nothing to review right now." in none.stdout and "next card is due" in none.stdout
    answers = peek(db, "SELECT COUNT(*) FROM answers")
    poke(db, "UPDATE cards SET due_at = 1000")  # a day later, as far as the cards can tell
    result = review(["--player", "ana"], "x\na\nb\nc\n", tmp_path, db)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert out.count("ZeroQuiz · Review") == 3
    assert "Cards due for review: 3." in out and "Cards due for review: 1." in out
    assert out.count("Why: ") == 3 and "Type one of the letters" in out
    assert "That was the last card due." in out
    assert peek(db, "SELECT COUNT(*) FROM answers") == answers  # only the cards changed
    again = review(["--player", "ana"], "a\n", tmp_path, db)
    assert "Nothing to review right now." in again.stdout
    other = review(["--player", "bob"], "", tmp_path, db)  # someone else's cards are theirs
    assert "Nothing to review right now." in other.stdout and "next card" not in other.stdout


def test_review_stops_on_q_filters_and_speaks_indonesian(tmp_path: Path) -> None:
    db = tmp_path / "q.db"
    assert play(["--count", "2", "--player", "ana"], "a\na\n", tmp_path, db).returncode == 0
    poke(db, "UPDATE cards SET due_at = 1000")
    stopped = review(["--player", "ana", "--lang", "id"], "q\n", tmp_path, db)
    assert stopped.returncode == 0, stopped.stderr
    assert "ZeroQuiz · Ulasan" in stopped.stdout and "Ulasan dihentikan" in stopped.stdout
    assert "Penjelasan" not in stopped.stdout  # stopped before answering
    unknown = review(["--player", "ana", "--topic", "nosuch"], "", tmp_path, db)
    assert unknown.returncode == 1 and "nosuch" in unknown.stderr and "offload" in unknown.stderr
    bank = load_bank()
    carded = [bank.get(str(qid)) for (qid,) in peek(db, "SELECT question_id FROM cards")]
    tags = {tag for q in carded if q is not None for tag in q.tags}
    first = carded[0]
    assert first is not None
    other = next(tag for q in bank.questions for tag in q.tags if tag not in tags)
    hit = review(["--player", "ana", "--topic", first.tags[0]], "q\n", tmp_path, db)
    shown = " ".join(hit.stdout.split())
    tagged = [q for q in carded if q is not None and first.tags[0] in q.tags]
    assert any(" ".join(q.prompt.en.split())[:40] in shown for q in tagged)
    assert f"Cards due for review: {len(tagged)}." in shown
    miss = review(["--player", "ana", "--topic", other], "", tmp_path, db)
    assert miss.returncode == 0 and "Nothing to review right now." in miss.stdout


def test_the_next_card_is_due_in_the_machines_own_zone_named(tmp_path: Path) -> None:
    """The terminal writes the next due time in the local zone (TZ), naming it; UTC when the
    machine runs on UTC."""
    db = tmp_path / "q.db"
    assert play(["--count", "1", "--player", "ana"], "a\n", tmp_path, db).returncode == 0
    [(due_ms,)] = peek(db, "SELECT due_at FROM cards")
    assert isinstance(due_ms, int)
    due = datetime.fromtimestamp(due_ms / 1000, UTC)
    for zone, name in (("Asia/Jakarta", "WIB"), ("UTC", "UTC")):
        local = due.astimezone(ZoneInfo(zone)).strftime("%Y-%m-%d %H:%M")
        shown = review(["--player", "ana"], "", tmp_path, db, tz=zone)
        assert shown.returncode == 0, shown.stderr
        assert f"Your next card is due {local} {name}." in shown.stdout
    jakarta = due.astimezone(ZoneInfo("Asia/Jakarta")).strftime("%Y-%m-%d %H:%M")
    indonesian = review(["--player", "ana", "--lang", "id"], "", tmp_path, db, tz="Asia/Jakarta")
    assert f"Kartu berikutnya jatuh tempo {jakarta} WIB." in indonesian.stdout
