"""The teacher LLM's chat: an OpenAI-compatible endpoint answered through the persistent cache.

One place builds it for both users: the teacher judge (:mod:`citetrain.judges.teacher`) and the
builders that distil its outputs (:mod:`citetrain.builders.itercoe_targets`).
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from citetrain.llm.cache import cache_folder
from citetrain.llm.client import CachedChat, ChatClient

DEFAULT_MAX_TOKENS = 2048
CHAT_SETTINGS = ("base_url", "api_key_env", "tries", "retry_delay", "timeout", "max_tokens",
                 "concurrency")


def default_cache_path() -> Path:
    """``teacher.sqlite`` beside ``$CITETRAIN_CACHE`` (the NLI cache file), or under
    ``~/.cache/citetrain``."""
    return cache_folder() / "teacher.sqlite"


def teacher_chat(model: str, *, base_url: str | None = None, api_key_env: str = "OPENAI_API_KEY",
                 cache_path: str | os.PathLike[str] | None = None,
                 max_tokens: int = DEFAULT_MAX_TOKENS, concurrency: int = 4, tries: int = 5,
                 retry_delay: float = 1.0, timeout: float = 120.0) -> CachedChat:
    """A :class:`CachedChat` over ``model`` (cache: :func:`default_cache_path` unless given)."""
    client = ChatClient(model, base_url=base_url, api_key_env=api_key_env, tries=tries,
                        retry_delay=retry_delay, timeout=timeout, max_tokens=max_tokens,
                        concurrency=concurrency)
    return CachedChat(client, cache_path or default_cache_path())


def teacher_chat_from_settings(settings: Any, **overrides: Any) -> CachedChat:
    """:func:`teacher_chat` from any object with ``model`` and some of its keyword arguments as
    attributes (e.g. a build spec's ``TeacherSpec``); ``overrides`` win."""
    kwargs = {n: getattr(settings, n) for n in (*CHAT_SETTINGS, "cache_path")
              if getattr(settings, n, None) is not None}
    kwargs.update(overrides)
    return teacher_chat(settings.model, **kwargs)
