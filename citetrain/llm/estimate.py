"""What a run of an LLM judge would send, counted before anything is sent (``citetrain eval
--dry-run``): requests, their prompts' size, and the answers already in the cache.

Tokens are estimated as characters / :data:`CHARS_PER_TOKEN` (no tokenizer: the judge's own is
seldom at hand, and OpenAI's models average about four characters a token in English).
"""
from __future__ import annotations

from dataclasses import dataclass

CHARS_PER_TOKEN = 4
TOKEN_RULE = f"tokens estimated as characters / {CHARS_PER_TOKEN}, no tokenizer"


@dataclass
class RequestPlan:
    """``requests`` to send, the characters of their prompts, and ``cached`` answers that the run
    reads from the cache instead of asking."""

    requests: int = 0
    prompt_chars: int = 0
    cached: int = 0

    @property
    def prompt_tokens(self) -> int:
        """The estimated prompt tokens of the requests to send (characters / 4, rounded up)."""
        return -(-self.prompt_chars // CHARS_PER_TOKEN)

    def add(self, other: "RequestPlan") -> "RequestPlan":
        """Both plans' counts together."""
        return RequestPlan(self.requests + other.requests, self.prompt_chars + other.prompt_chars,
                           self.cached + other.cached)

    def line(self, who: str) -> str:
        """One line: ``WHO: N judge requests, ~T prompt tokens (rule), C already cached``."""
        return (f"{who}: {self.requests:,} judge requests, ~{self.prompt_tokens:,} prompt tokens "
                f"({TOKEN_RULE}), {self.cached:,} answers already cached")


__all__ = ["CHARS_PER_TOKEN", "RequestPlan", "TOKEN_RULE"]
