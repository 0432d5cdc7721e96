"""The checked bank kept between starts (bot/bank/cache.py): the same bank as a full check, never
a stale one, never one from a file someone else could have written, and no error when the cache
is missing, corrupt or can't be written. `play` and `validate` are run as real child processes."""

from __future__ import annotations

import os
import pickle
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from bot.bank import Bank, BankError, bundled_paths, load_bank
from bot.bank.cache import FORMAT, cached_bank, digest, read_files

ROOT = Path(__file__).resolve().parents[2]

ONE = """\
questions:
  - id: cache-one
    prompt: {en: "Which stage shards the gradients?", id: "Tahap mana yang membagi gradien?"}
    options:
      - {en: "Stage 2", id: "Tahap 2", correct: true}
      - {en: "Stage 0", id: "Tahap 0"}
    explanation: {en: "Stage 2 adds gradients.", id: "Tahap 2 menambah gradien."}
"""


def cache_files(folder: Path) -> list[Path]:
    return sorted(folder.glob("bank-*.pickle")) if folder.exists() else []


def same_bank(got: Bank, want: Bank) -> None:
    assert got.questions == want.questions
    assert [t.id for t in got.templates] == [t.id for t in want.templates]
    assert [t.origin for t in got.templates] == [t.origin for t in want.templates]
    for template in want.templates:  # formulas hold syntax trees: compare what they draw
        for seed in (1, 7, 12345):
            assert got.get(f"{template.id}@{seed}") == template.draw(seed)


def test_the_cached_bundled_bank_is_the_checked_one(tmp_path: Path) -> None:
    folder = tmp_path / "cache"
    first = cached_bank(None, folder)
    (written,) = cache_files(folder)
    second = cached_bank(None, folder)
    want = load_bank()
    same_bank(first, want)
    same_bank(second, want)
    assert cache_files(folder) == [written]


def test_the_cache_file_is_private_in_a_private_folder(tmp_path: Path) -> None:
    folder = tmp_path / "deep" / "cache"
    cached_bank(None, folder)
    (written,) = cache_files(folder)
    assert stat.S_IMODE(written.stat().st_mode) == 0o600
    assert stat.S_IMODE(folder.stat().st_mode) & 0o077 == 0
    assert [p.name for p in folder.iterdir()] == [written.name]  # no temporary left behind


def test_a_changed_file_is_checked_again_not_taken_from_the_cache(tmp_path: Path) -> None:
    folder = tmp_path / "cache"
    mine = tmp_path / "mine.yaml"
    mine.write_text(ONE)
    assert cached_bank([mine], folder).questions[0].prompt.en == "Which stage shards the gradients?"
    stamp = mine.stat()
    mine.write_text(ONE.replace("the gradients?", "the grads?"))
    os.utime(mine, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))  # same mtime: the bytes decide
    assert cached_bank([mine], folder).questions[0].prompt.en == "Which stage shards the grads?"


def test_a_file_broken_after_it_was_cached_is_reported_with_its_line(tmp_path: Path) -> None:
    folder = tmp_path / "cache"
    mine = tmp_path / "mine.yaml"
    mine.write_text(ONE)
    cached_bank([mine], folder)
    mine.write_text(ONE.replace('      - {en: "Stage 0", id: "Tahap 0"}', "      - {en: 7}"))
    with pytest.raises(BankError) as raised:
        cached_bank([mine], folder)
    with pytest.raises(BankError) as full:
        load_bank([mine])
    assert raised.value.problems == full.value.problems
    assert raised.value.problems[0].path == str(mine)
    assert raised.value.problems[0].line == 6


def test_a_renamed_file_gives_its_new_name_to_its_questions(tmp_path: Path) -> None:
    folder = tmp_path / "cache"
    (tmp_path / "a.yaml").write_text(ONE)
    cached_bank([tmp_path / "a.yaml"], folder)
    (tmp_path / "a.yaml").rename(tmp_path / "b.yaml")
    bank = cached_bank([tmp_path / "b.yaml"], folder)
    assert bank.questions[0].origin == f"{tmp_path / 'b.yaml'}:2"


@pytest.mark.parametrize(
    "garbage",
    [b"", b"not a pickle", b"\x80\x05\x95", pickle.dumps(("zeroquiz", 1)), pickle.dumps([1, 2])],
)
def test_a_corrupt_cache_is_ignored_and_replaced(tmp_path: Path, garbage: bytes) -> None:
    folder = tmp_path / "cache"
    cached_bank(None, folder)
    (written,) = cache_files(folder)
    written.write_bytes(garbage)
    same_bank(cached_bank(None, folder), load_bank())
    assert written.read_bytes() != garbage  # the full check's bank was written again
    same_bank(cached_bank(None, folder), load_bank())


def test_a_truncated_cache_is_ignored(tmp_path: Path) -> None:
    folder = tmp_path / "cache"
    cached_bank(None, folder)
    (written,) = cache_files(folder)
    written.write_bytes(written.read_bytes()[:1000])
    same_bank(cached_bank(None, folder), load_bank())


def planted(tmp_path: Path, mine: Path, folder: Path) -> Path:
    """A cache file of another bank (a forged question) under the name `mine`'s bank would have."""
    named = read_files([mine])
    assert named is not None
    key = digest(named)
    bank = load_bank([mine])
    forged = [q._replace(explanation=q.prompt) for q in bank.questions]
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    where = folder / f"bank-{key[:32]}.pickle"
    where.write_bytes(pickle.dumps((FORMAT, key, forged, [])))
    where.chmod(0o600)
    return where


def test_a_planted_file_is_used_only_when_private(tmp_path: Path) -> None:
    """The seam the other tests rely on: the cache is read. Then the same file, readable or
    writable by others, or in a folder others may write, is not trusted."""
    folder = tmp_path / "cache"
    mine = tmp_path / "mine.yaml"
    mine.write_text(ONE)
    where = planted(tmp_path, mine, folder)
    forged = cached_bank([mine], folder)
    assert forged.questions[0].explanation == forged.questions[0].prompt  # read from the cache
    real = load_bank([mine]).questions
    for mode in (0o644, 0o660, 0o606):
        planted(tmp_path, mine, folder).chmod(mode)
        assert cached_bank([mine], folder).questions == real
    planted(tmp_path, mine, folder)
    folder.chmod(0o777)
    assert cached_bank([mine], folder).questions == real
    folder.chmod(0o700)
    link = folder / "elsewhere.pickle"
    where.rename(link)
    where.symlink_to(link)  # a link is not followed
    assert cached_bank([mine], folder).questions == real


def test_an_unwritable_cache_folder_costs_nothing_but_time(tmp_path: Path) -> None:
    if os.geteuid() == 0:
        blocker = tmp_path / "file"
        blocker.write_text("a file where the folder would be")
        folder = blocker / "cache"  # root may write anywhere, but not below a file
    else:
        folder = tmp_path / "ro"
        folder.mkdir(mode=0o500)
    same_bank(cached_bank(None, folder), load_bank())
    same_bank(cached_bank(None, folder), load_bank())


def test_old_banks_are_pruned(tmp_path: Path) -> None:
    folder = tmp_path / "cache"
    for n in range(12):
        mine = tmp_path / f"f{n}.yaml"
        mine.write_text(ONE.replace("cache-one", f"cache-{n}"))
        cached_bank([mine], folder)
        for old in cache_files(folder):  # mtimes one second apart, oldest first
            os.utime(old, (old.stat().st_mtime - 1, old.stat().st_mtime - 1))
    assert len(cache_files(folder)) == 8


def test_unreadable_files_are_reported_as_the_full_check_reports_them(tmp_path: Path) -> None:
    folder = tmp_path / "cache"
    missing = tmp_path / "missing.yaml"
    with pytest.raises(BankError) as raised:
        cached_bank([*bundled_paths(), missing], folder)
    assert [p.path for p in raised.value.problems] == [str(missing)]
    assert cache_files(folder) == []


def zeroquiz(args: list[str], tmp_path: Path, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ZEROQUIZ_")}
    env |= {"XDG_CACHE_HOME": str(tmp_path / "xdg-cache"), "PYTHONPATH": str(ROOT)}
    env["ZEROQUIZ_DB"] = str(tmp_path / "play.sqlite3")
    return subprocess.run(
        [sys.executable, "-m", "adapters.cli", *args], input=stdin, capture_output=True,
        text=True, cwd=tmp_path, env=env, timeout=60,
    )  # fmt: skip


def test_play_keeps_its_bank_private_and_validate_checks_the_files_anyway(tmp_path: Path) -> None:
    mine = tmp_path / "mine.yaml"
    mine.write_text(ONE)
    played = zeroquiz(["play", "--count", "1", "--questions", str(mine)], tmp_path, "a\n")
    assert played.returncode == 0, played.stderr
    folder = tmp_path / "xdg-cache" / "zeroquiz"
    (written,) = cache_files(folder)
    assert stat.S_IMODE(written.stat().st_mode) == 0o600
    mine.write_text(ONE.replace('      - {en: "Stage 0", id: "Tahap 0"}', "      - {en: 7}"))
    again = zeroquiz(["play", "--count", "1", "--questions", str(mine)], tmp_path, "a\n")
    assert again.returncode == 1
    assert f"{mine}:6: option 2 is missing the 'id' text" in again.stderr
    checked = zeroquiz(["validate", str(mine)], tmp_path)
    assert checked.returncode == 1
    assert f"{mine}:6: option 2 is missing the 'id' text" in checked.stderr
    assert cache_files(folder) == [written]  # validate neither reads nor writes it
