"""The bundled bank is worth a quarter of daily questions and covers the whole subject."""

from __future__ import annotations

import re
from collections import Counter

from bot.bank import load_bank

TOPICS = {
    "dp-memory": "why data parallelism runs out of memory; model states; 16 bytes per parameter",
    "memory-math": "per-GPU memory formulas; the 7.5B / 64-GPU example; scaling with Nd",
    "stages": "what stages 1, 2 and 3 partition",
    "communication": "all-reduce = reduce-scatter + all-gather; 1x vs 1.5x; gather and discard",
    "zero-r": "activation partitioning, constant buffers, defragmentation",
    "offload": "ZeRO-Offload",
    "infinity": "ZeRO-Infinity",
    "zeropp": "ZeRO++ qwZ, hpZ, qgZ",
    "pytorch": "FSDP strategies, FSDP2 fully_shard, ZeroRedundancyOptimizer",
    "deepspeed-config": "stage, offload_optimizer, offload_param",
    # Issue 11, item 5: the sharded-optimizer family, sharded checkpoints, ZeRO in practice.
    "sharded-optimizers": "ZeroRedundancyOptimizer, fairscale OSS/ShardedDDP/FSDP, Megatron, MiCS",
    "checkpointing": "torch.distributed.checkpoint, universal checkpoints, ZeRO-3 weights",
    "practice": "gradient accumulation, activation checkpointing, zero_optimization knobs",
    # Issue 30: what practitioners use in 2026.
    "fsdp2": "fully_shard in practice: reshard, no-sync accumulation, prefetch, policies",
    "mixed-precision": "fp16 and bf16, loss scaling, fp32 master weights",
    "activations": "activation memory and checkpointing beside sharding",
    "parallelism": "ZeRO and FSDP with tensor, pipeline and sequence parallelism",
    "comm-time": "time on the wire: ring all-reduce, bus bandwidth, overlap, buckets",
    "accounting": "the paper's 16 bytes against DeepSpeed's, Megatron's and FSDP2's accounting",
}

# Floors for the topics item 5 added: enough that a topic filter on them gives a real session.
NEW_TOPIC_FLOORS = {"sharded-optimizers": 20, "checkpointing": 10, "practice": 10}

# The family item 5 names (matched case-sensitively), each asked about, not just mentioned.
FAMILY = {
    "ZeroRedundancyOptimizer": 4,
    "OSS": 4,
    "ShardedDDP": 3,
    "Megatron": 4,
    "MiCS": 4,
    "Distributed Checkpoint": 3,
    "Universal": 2,
    "accumulat": 4,
    "activation checkpoint": 3,
}


def test_at_least_106_questions_each_sourced_and_bilingual() -> None:
    bank = load_bank()
    assert len(bank) >= 106
    for q in bank.questions:
        assert q.source, q.id
        assert q.difficulty in (1, 2, 3), q.id
        assert q.explanation.en and q.explanation.id and q.explanation.en != q.explanation.id


def test_every_topic_is_covered_roughly_evenly() -> None:
    tags = Counter(tag for q in load_bank().questions for tag in q.tags)
    for topic in TOPICS:
        assert tags[topic] >= 4, f"{topic} ({TOPICS[topic]}) has only {tags[topic]} questions"
    every_question_has_a_topic = all(set(q.tags) & TOPICS.keys() for q in load_bank().questions)
    assert every_question_has_a_topic
    for topic, floor in NEW_TOPIC_FLOORS.items():
        assert tags[topic] >= floor, f"{topic} has only {tags[topic]} questions (floor {floor})"


def test_new_topics_mix_difficulties() -> None:
    for topic in NEW_TOPIC_FLOORS:
        levels = Counter(q.difficulty for q in load_bank().questions if topic in q.tags)
        assert set(levels) == {1, 2, 3}, (topic, levels)


def test_the_family_is_asked_about() -> None:
    """Each family member is the subject of several questions (in a prompt or an option)."""
    for name, floor in FAMILY.items():
        asked = [
            q.id
            for q in load_bank().questions
            if name in " ".join([q.prompt.en, *(o.en for o in q.options)])
        ]
        assert len(asked) >= floor, (name, asked)


def test_new_topics_cite_a_precise_source() -> None:
    """A source names a file in a repository (.md, .rst, .py) or a paper's section or abstract."""
    precise = re.compile(r"\.(md|rst|py)\b|§|abstract")
    for q in load_bank().questions:
        if set(q.tags) & NEW_TOPIC_FLOORS.keys():
            assert precise.search(q.source or ""), (q.id, q.source)


def test_difficulty_is_a_mix() -> None:
    levels = Counter(q.difficulty for q in load_bank().questions)
    total = sum(levels.values())
    assert set(levels) == {1, 2, 3}
    assert all(count / total >= 0.15 for count in levels.values()), levels


def test_key_facts_are_taught_somewhere() -> None:
    """Spot checks that the arithmetic the issue names is really in the bank, with its numbers."""
    text = " ".join(
        " ".join([q.prompt.en, q.explanation.en, *(o.en for o in q.options)])
        for q in load_bank().questions
    )
    for fact in (
        "16",
        "31.4",
        "16.6",
        "1.9",
        "1.5x",
        "reduce-scatter",
        "offload_param",
        "offload_optimizer",
        "reshard_after_forward",
        "ZeroRedundancyOptimizer",
        "qwZ",
        "hpZ",
        "qgZ",
        "NVMe",
        "FULL_SHARD",
        "SHARD_GRAD_OP",
        "broadcast",
        "4 + 16/d",
        "ds_to_universal.py",
        "load_universal",
        "zero_to_fp32.py",
        "consolidate_state_dict",
        "no_sync",
        "gradient_accumulation_steps",
        "partition_activations",
        "mics_shard_size",
    ):
        assert fact in text, fact


def test_correct_answers_are_not_always_in_one_position() -> None:
    positions = Counter(q.answer for q in load_bank().questions)
    assert max(positions.values()) / sum(positions.values()) < 0.5


# Generated arithmetic (questions/60_arithmetic.yaml), counted apart from the hand-written ones.
TEMPLATE_TOPICS = {"memory-math", "communication", "offload", "zeropp", "infinity", "stages"}


def test_templates_cover_the_memory_and_communication_arithmetic() -> None:
    bank = load_bank()
    assert len(bank.templates) >= 10
    tags = Counter(tag for t in bank.templates for tag in t.tags)
    assert set(tags) >= TEMPLATE_TOPICS, tags
    assert tags["memory-math"] >= 5 and tags["communication"] >= 3
    for t in bank.templates:
        assert t.source and t.difficulty in (1, 2, 3), t.id
        assert set(t.tags) & TOPICS.keys(), t.id
        assert t.explanation.en != t.explanation.id
    assert {t.difficulty for t in bank.templates} == {1, 2, 3}
