"""A teacher LLM's ITERCOE outputs as judge targets (OpenAI-compatible endpoint, cached, resumable).

Every prompt goes through :class:`~citetrain.llm.client.CachedChat`: answers are stored as they
arrive, so a killed build asks only what is missing when it runs again. An output that
:func:`~citetrain.metrics.itercoe.parse_itercoe` cannot read for every statement is dropped (and
counted by the builder), never kept.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

from citetrain.llm.teacher_chat import teacher_chat_from_settings
from citetrain.metrics.itercoe import parse_itercoe


def readable(output: str, n_statements: int) -> bool:
    """Whether every statement's editing and rating blocks parse."""
    return all(j.status == "ok" for j in parse_itercoe(output, n_statements))


def teacher_outputs(teacher: Any, prompts: Sequence[tuple[str, int]], cache_path: str | Path,
                    progress: bool = True) -> dict[str, str | None]:
    """``{prompt: output}`` for ``(prompt, number of statements)`` pairs; ``None`` where the
    teacher's output cannot be parsed."""
    chat = teacher_chat_from_settings(teacher, cache_path=cache_path)
    unique = dict(prompts)
    answers = chat.complete(list(unique), progress=progress)
    return {p: (a if readable(a, unique[p]) else None) for p, a in zip(unique, answers)}
