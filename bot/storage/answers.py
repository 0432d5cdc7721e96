"""Group commit: the answers that arrive together are recorded in one transaction.

One writer task per process takes every answer waiting when it starts a commit (those arriving
during the commit go into the next one). The guards stay in the SQL, decided per answer by the
database: an answer is inserted only while its round is open at that instant, and only the first
per (round, player). A caller's `record` returns only after the commit, so whatever a platform is
told afterwards is already durable.

Bounded: at most `max_pending` answers wait or commit at once; more callers wait for a slot
before anything is queued, so overload makes acknowledgements slower instead of growing a
backlog of accepted work.

The players' ids are remembered for the next answers, in a cache of at most `PLAYER_CACHE`
people, the least recently answering dropped first: a flood of distinct users (each click a new
person) costs a bounded amount of memory, and a forgotten entry only costs its player one row
in the batch's player upsert.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
from collections import OrderedDict
from dataclasses import dataclass

from bot.periods import to_ms
from bot.storage import cards, insights, totals
from bot.storage.engine import Conn, Engine, insert_rows, values_rows
from bot.storage.records import AnswerOutcome, AnswerRequest, CardRule, CardState
from bot.storage.slots import FairSlots

log = logging.getLogger(__name__)

MAX_BATCH = 1024
MAX_PENDING = 4096
PLAYER_CACHE = 8192  # players whose ids are remembered (about 0.4 kB each)


@dataclass(slots=True)
class _Item:
    request: AnswerRequest
    future: asyncio.Future[AnswerOutcome]
    rule: CardRule | None  # how the answer reschedules the person's card (None: it doesn't)
    player_id: int = 0


class AnswerTable:
    def __init__(
        self,
        engine: Engine,
        *,
        max_batch: int = MAX_BATCH,
        max_pending: int = MAX_PENDING,
        player_cache: int = PLAYER_CACHE,
    ) -> None:
        self._e = engine
        self._max_batch = max_batch
        self._player_cache = player_cache
        self._slots = FairSlots(max_pending)
        self._queue: list[_Item] = []
        self._wake = asyncio.Event()
        self._drained = asyncio.Event()  # set whenever the queue is empty and nothing commits
        self._drained.set()
        self._task: asyncio.Task[None] | None = None
        self._players: OrderedDict[tuple[int, str], tuple[int, str]] = OrderedDict()
        self.batches = 0  # commits made, for benchmarks and tests

    @property
    def cached_players(self) -> int:
        """How many players' ids are remembered (what `player_cache` bounds)."""
        return len(self._players)

    async def record(self, request: AnswerRequest, card_rule: CardRule | None) -> AnswerOutcome:
        """Record one answer; returns once the transaction holding it has committed. In the
        same transaction `card_rule` (the core's, storage knows no review schedule) reschedules
        the person's card for that question.

        Never from inside a transaction: the writer needs the lock that transaction holds.
        """
        if self._e.current() is not None:
            raise RuntimeError("answers are recorded outside transactions (group commit)")
        async with self._slots:
            future: asyncio.Future[AnswerOutcome] = asyncio.get_running_loop().create_future()
            self._queue.append(_Item(request, future, card_rule))
            self._drained.clear()
            self._wake.set()
            self._ensure_running()
            # A cancelled caller cancels only this future: the answer stays queued and the
            # writer skips setting a result nobody waits for.
            return await future

    def _ensure_running(self) -> None:
        if self._task is None or self._task.done():
            # A clean context: the loop must never inherit a caller's open transaction.
            self._task = asyncio.get_running_loop().create_task(
                self._run(), name="zeroquiz-answer-writer", context=contextvars.Context()
            )

    async def close(self) -> None:
        """Commit what is queued, then stop the writer task."""
        if self._queue:
            self._ensure_running()
            self._wake.set()
        await self._drained.wait()
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def _run(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            while self._queue:
                items = self._queue[: self._max_batch]
                del self._queue[: self._max_batch]
                try:
                    outcomes = await self._commit(items)
                except Exception as exc:
                    log.exception("recording %d answers failed", len(items))
                    for item in items:
                        if not item.future.done():
                            item.future.set_exception(exc)
                    continue
                self.batches += 1
                for item, outcome in zip(items, outcomes, strict=True):
                    if not item.future.done():
                        item.future.set_result(outcome)
            self._drained.set()

    async def _commit(self, items: list[_Item]) -> list[AnswerOutcome]:
        known, wanted = self._known(items)

        async def work(tx: Conn) -> _Recorded:
            return await _record(tx, items, known, wanted)

        # One call: on SQLite the whole transaction is one trip to the writer's thread, so a
        # click that commits alone pays one hand-over instead of one per statement.
        done = await self._e.run_transaction(work)
        self._remember(done.fresh)  # committed: these ids are real now
        firsts, inserted, earlier = done.firsts, done.inserted, done.earlier
        outcomes: list[AnswerOutcome] = []
        for item in items:
            key = (item.request.round_id, item.player_id)
            if firsts[key] is item and key in inserted:
                outcomes.append(AnswerOutcome("recorded"))
            elif key in inserted:  # a second click in the same batch: the first one counted
                first = firsts[key].request
                outcomes.append(AnswerOutcome("already", first.option, first.typed))
            elif key in earlier:
                outcomes.append(AnswerOutcome("already", *earlier[key]))
            else:
                outcomes.append(AnswerOutcome("closed"))
        return outcomes

    def _known(
        self, items: list[_Item]
    ) -> tuple[dict[tuple[int, str], tuple[int, str]], dict[tuple[int, str], AnswerRequest]]:
        """Known players (same name) come from memory, read here on the event loop (the
        transaction may run on another thread); the rest are `wanted` for the upsert."""
        known: dict[tuple[int, str], tuple[int, str]] = {}
        wanted: dict[tuple[int, str], AnswerRequest] = {}
        for item in items:
            r = item.request
            key = (r.team_id, r.user)
            cached = self._players.get(key)
            if cached is not None:
                self._players.move_to_end(key)  # least recently answering go first
                known[key] = cached
            if cached is None or (r.name and not r.provisional_name and cached[1] != r.name):
                wanted[key] = r
        return known, wanted

    def evict(self, team_id: int, user: str) -> None:
        """The person was forgotten: their next answer makes a new player."""
        self._players.pop((team_id, user), None)

    def _remember(self, fresh: dict[tuple[int, str], tuple[int, str]]) -> None:
        for key, value in fresh.items():
            self._players[key] = value
            self._players.move_to_end(key)
        while len(self._players) > self._player_cache:
            self._players.popitem(last=False)


@dataclass
class _Recorded:
    """What a batch's transaction found: new players' ids, each (round, player)'s first click,
    which of those inserted, and the earlier answers of those that did not."""

    fresh: dict[tuple[int, str], tuple[int, str]]
    firsts: dict[tuple[int, int], _Item]
    inserted: set[tuple[int, int]]
    earlier: dict[tuple[int, int], tuple[int, str | None]]


async def _record(
    tx: Conn,
    items: list[_Item],
    known: dict[tuple[int, str], tuple[int, str]],
    wanted: dict[tuple[int, str], AnswerRequest],
) -> _Recorded:
    """The batch's statements, in one transaction; only `tx`'s statements are awaited (see
    Engine.run_transaction), and the player cache is not touched here."""
    fresh = await _player_ids(tx, items, known, wanted)
    firsts = _firsts(items)
    inserted = await _insert(tx, list(firsts.values()))
    gone = await _gone(tx, {pid for _, pid in firsts.keys() - inserted})
    if gone:  # forgotten meanwhile (`/zeroquiz forget`, maybe on another replica)
        again = [i for i in items if i.player_id in gone]
        requests = {(i.request.team_id, i.request.user): i.request for i in again}
        fresh.update(await _player_ids(tx, again, {}, requests))  # new players, new ids
        renewed = {i.player_id for i in again}
        firsts = _firsts(items)
        inserted |= await _insert(tx, [i for k, i in firsts.items() if k[1] in renewed])
    recorded = [i for key, i in firsts.items() if key in inserted]
    await _count(tx, recorded)
    await _reschedule(tx, recorded)
    earlier = await _existing(tx, [key for key in firsts if key not in inserted])
    return _Recorded(fresh, firsts, inserted, earlier)


async def _player_ids(
    tx: Conn,
    items: list[_Item],
    known: dict[tuple[int, str], tuple[int, str]],
    wanted: dict[tuple[int, str], AnswerRequest],
) -> dict[tuple[int, str], tuple[int, str]]:
    """Upsert the `wanted` players (the rest are `known`) and set each item's player id;
    returns the upserted ones, remembered only once the transaction has committed."""
    fresh = await _unchanged_players(tx, wanted)
    for provisional in (False, True):
        group = [
            r for key, r in wanted.items() if r.provisional_name is provisional and key not in fresh
        ]
        if group:
            fresh.update(await _upsert_players(tx, group, provisional=provisional))
    for item in items:
        key = (item.request.team_id, item.request.user)
        item.player_id = (fresh.get(key) or known[key])[0]
    return fresh


async def _unchanged_players(
    tx: Conn, wanted: dict[tuple[int, str], AnswerRequest]
) -> dict[tuple[int, str], tuple[int, str]]:
    """The `wanted` players who exist and whose name the upsert would leave as it is: read,
    not upserted. Returning players are most of a busy round, and a read of their row is far
    cheaper than an insert that conflicts and then updates it."""
    if not wanted:
        return {}
    keys = sorted(wanted)
    values = values_rows(tx.dialect, len(keys), ("bigint", "text"))
    rows = await tx.fetch(
        f"""SELECT p.id, p.team_id, p.platform_user, p.display_name
            FROM (VALUES {values}) AS v
            JOIN players p ON p.team_id = v.column1 AND p.platform_user = v.column2""",
        *[v for key in keys for v in key],
    )
    found: dict[tuple[int, str], tuple[int, str]] = {}
    for row in rows:
        key = (int(row["team_id"]), str(row["platform_user"]))
        stored = str(row["display_name"])
        r = wanted[key]
        # The upsert's rule (_upsert_players): a provisional name only fills an empty one, a
        # known one replaces it unless empty.
        kept = (stored != "" or not r.name) if r.provisional_name else r.name in ("", stored)
        if kept:
            found[key] = (int(row["id"]), stored)
    return found


def _firsts(items: list[_Item]) -> dict[tuple[int, int], _Item]:
    """A person's first click per round, keyed (round, player)."""
    firsts: dict[tuple[int, int], _Item] = {}
    for item in items:
        firsts.setdefault((item.request.round_id, item.player_id), item)
    return firsts


async def _gone(tx: Conn, player_ids: set[int]) -> set[int]:
    """Which of these player ids no longer exist (only asked for clicks that did not insert)."""
    if not player_ids:
        return set()
    wanted = sorted(player_ids)
    marks = ", ".join(f"${n + 1}" for n in range(len(wanted)))
    rows = await tx.fetch(f"SELECT id FROM players WHERE id IN ({marks})", *wanted)
    return player_ids - {int(r["id"]) for r in rows}


async def _upsert_players(
    tx: Conn, requests: list[AnswerRequest], *, provisional: bool
) -> dict[tuple[int, str], tuple[int, str]]:
    """Create or find players; a known name replaces the stored one, a provisional one (a Slack
    handle before users.info answered) only fills an empty name."""
    requests = sorted(requests, key=lambda r: (r.team_id, r.user))  # one lock order for all
    values = insert_rows(len(requests), 3)
    keep = "players.display_name = ''" if provisional else "excluded.display_name != ''"
    rows = await tx.fetch(
        f"""INSERT INTO players (team_id, platform_user, display_name) VALUES {values}
            ON CONFLICT (team_id, platform_user) DO UPDATE SET display_name =
                CASE WHEN {keep} THEN excluded.display_name ELSE players.display_name END
            RETURNING id, team_id, platform_user, display_name""",
        *[v for r in requests for v in (r.team_id, r.user, r.name)],
    )
    return {
        (int(row["team_id"]), str(row["platform_user"])): (int(row["id"]), str(row["display_name"]))
        for row in rows
    }


async def _insert(tx: Conn, items: list[_Item]) -> set[tuple[int, int]]:
    """Insert the batch's first answers; the JOIN keeps only those whose round is open at the
    moment of the click, ON CONFLICT keeps only a person's first answer."""
    if not items:
        return set()
    values = values_rows(tx.dialect, len(items), ("bigint",) * 6 + ("text",))
    params: list[object] = []
    # In key order: two replicas' batches then take their row locks in the same order.
    for item in sorted(items, key=lambda i: (i.request.round_id, i.player_id)):
        r = item.request
        params += [r.round_id, item.player_id, r.option, int(r.correct), r.points, to_ms(r.at)]
        params.append(r.typed)
    # PostgreSQL: FOR SHARE makes an answer wait for a close of its round that is under way
    # (and see it closed), and a close wait for the answers being inserted; SQLite's single
    # writer serialises them anyway.
    # The player row is locked as the foreign key's check would lock it, so a forget that
    # deleted it meanwhile drops that answer (it is retried as a new player) instead of failing
    # the whole batch.
    lock = "FOR SHARE OF r FOR KEY SHARE OF p" if tx.dialect == "postgres" else ""
    rows = await tx.fetch(
        f"""INSERT INTO answers (round_id, player_id, choice, correct, points, answered_at, typed)
            SELECT v.column1, v.column2, v.column3, v.column4, v.column5, v.column6, v.column7
            FROM (VALUES {values}) AS v
            JOIN rounds r ON r.id = v.column1 AND r.closed_at IS NULL AND r.deadline_at > v.column6
            JOIN players p ON p.id = v.column2
            WHERE true {lock}
            ON CONFLICT (round_id, player_id) DO NOTHING
            RETURNING round_id, player_id""",
        *params,
    )
    return {(int(r["round_id"]), int(r["player_id"])) for r in rows}


async def _count(tx: Conn, items: list[_Item]) -> None:
    """Add the recorded answers to the leaderboard totals and the insights' read models, in
    the same transaction."""
    if not items:
        return
    team_ids = sorted({i.request.team_id for i in items})
    marks = ", ".join(f"${n + 1}" for n in range(len(team_ids)))
    season = totals.SEASON_OF.format(team="t.id")
    zones = {
        int(r["id"]): (str(r["tz"]), int(r["season"] or 0))
        for r in await tx.fetch(
            f"SELECT t.id, t.tz, {season} AS season FROM teams t WHERE t.id IN ({marks})",
            *team_ids,
        )
    }
    # The players' overall scores before this batch rate its answers (bot/storage/insights.py).
    scores = await insights.scores_before(tx, ((i.request.team_id, i.player_id) for i in items))
    tzs = {team: tz for team, (tz, _) in zones.items()}  # insights ignore seasons: all time
    await insights.count(tx, [_insight(i) for i in items], tzs, scores)
    deltas: dict[tuple[int, str, int], totals.Delta] = {}
    for item in items:
        r = item.request
        at = to_ms(r.at)
        tz, season_ms = zones.get(r.team_id, ("UTC", 0))
        for period, start in totals.bucket_starts_ms(at, tz, season_ms):
            key = (item.player_id, period, start)
            delta = deltas.get(key)
            if delta is None:
                delta = totals.Delta(r.team_id, item.player_id, r.user, period, start)
                deltas[key] = delta
            delta.points += r.points
            delta.correct += int(r.correct)
            delta.answered += 1
            if r.points > 0:
                delta.reached_ms = max(delta.reached_ms, at)
    await totals.apply(tx, deltas.values())


def _insight(item: _Item) -> insights.Answer:
    r = item.request
    return insights.Answer(
        r.team_id, item.player_id, r.question_id, r.option, r.correct, to_ms(r.at)
    )


async def _reschedule(tx: Conn, items: list[_Item]) -> None:
    """Reschedule the answering people's cards for the recorded answers, in answer order (one
    person meeting one question twice in a batch reschedules it twice)."""
    items = sorted(
        (i for i in items if i.request.question_id and i.rule), key=lambda i: i.request.at
    )
    if not items:
        return
    states: dict[cards.Key, str | None] = {}
    states.update(await cards.load(tx, ((i.player_id, i.request.question_id) for i in items)))
    changed: dict[cards.Key, CardState] = {}
    for item in items:
        key = (item.player_id, item.request.question_id)
        assert item.rule is not None
        card = item.rule(states.get(key), item.request.correct, item.request.at)
        states[key] = card.state
        changed[key] = card
    await cards.save(tx, changed)


async def _existing(
    tx: Conn, keys: list[tuple[int, int]]
) -> dict[tuple[int, int], tuple[int, str | None]]:
    """The earlier answers (choice, and what was typed) of those whose click did not insert
    (already answered, or closed). A join from the keys, not `(a, b) IN (VALUES …)`: SQLite
    scans the whole table for that."""
    if not keys:
        return {}
    values = values_rows(tx.dialect, len(keys), ("bigint", "bigint"))
    rows = await tx.fetch(
        f"""SELECT a.round_id, a.player_id, a.choice, a.typed
            FROM (VALUES {values}) AS v
            JOIN answers a ON a.round_id = v.column1 AND a.player_id = v.column2""",
        *[v for key in keys for v in key],
    )
    return {
        (int(r["round_id"]), int(r["player_id"])): (
            int(r["choice"]),
            None if r["typed"] is None else str(r["typed"]),
        )
        for r in rows
    }
