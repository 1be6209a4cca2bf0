"""Test setup: offline hub, a throwaway NLI cache, and the shared data folder."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.fake_openai import server  # noqa: F401  (the fake OpenAI endpoint fixture, for every module)

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = (REPO / ".." / "shared" / "data").resolve()


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path_factory, monkeypatch):
    """Every test gets its own NLI cache file, never the user's."""
    monkeypatch.setenv("CITETRAIN_CACHE", str(tmp_path_factory.mktemp("cache") / "nli.sqlite"))


@pytest.fixture
def shared_data() -> Path:
    """``../shared/data`` beside the repo, or skip when it is absent."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"real data not found at {SHARED_DATA} (../shared/data beside the repo)")
    return SHARED_DATA
