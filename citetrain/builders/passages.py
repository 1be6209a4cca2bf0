"""The passages of a ``pairs`` build, read from the spec's sources, deduplicated, split into
sentences, with the passages of held-out human-labelled claims left out.

- record formats (alce, expertqa, quotesum, webglm, citeeval, longcite): each record's docs;
  group = the record id.
- labelled formats (wice, wice_oracle, attributionbench): each pair's premise; group = the claim.
- ``text``: a ``.txt`` file, one passage per blank-line-separated paragraph; group = the paragraph.

Header lines (``Title: ...``, ``[n] url``, a bare url) are dropped and a ``Text:`` prefix
removed; sentences come from spaCy's rule-based sentencizer, line by line; sentences of fewer than
3 or more than 100 words are left out. A passage is identified by the sha1 of its sentences
(``id`` = its first 16 hex digits): a passage read twice is kept once, first in source order.
Bad input raises the record readers' one-line error (file, line, field).
"""
from __future__ import annotations

import hashlib
import re
from contextlib import nullcontext
from dataclasses import dataclass, field
from functools import lru_cache
from multiprocessing import get_context
from pathlib import Path
from typing import Any, Iterable, Iterator, Sequence

from tqdm.auto import tqdm

from citetrain.builders.edits import n_words, norm
from citetrain.builders.sets import split_of
from citetrain.io.readers import sha256_file
from citetrain.errors import CitetrainError, InputError
from citetrain.io.formats import CONVERTERS
from citetrain.io.labelled import (LABELLED_CONVERTERS, LabelledPair, detect_labelled_format,
                                   read_labelled, split_key)
from citetrain.io.readers import Problems, load_items, read_records

MIN_SENTENCE_WORDS, MAX_SENTENCE_WORDS = 3, 100
SPLIT_CHUNK = 2_000  # passages a process splits into sentences at a time
HOLDOUT_LINE_WORDS = 8  # shorter lines (headers, "References") are too common to match on
_TITLE = re.compile(r"^\s*Title:\s*(.*)$")
_HEADER = re.compile(r"^\s*(\[\d+\]\s*\S*|https?://\S+)\s*$")
_TEXT = re.compile(r"^\s*Text:\s*")


@dataclass(frozen=True)
class Passage:
    """One passage: its sentences, where it was read and the record / claim it belongs to."""

    id: str
    sha1: str
    sentences: tuple[str, ...]
    title: str
    source: str  # "FORMAT:PATH"
    origin: str  # "PATH:LINE" (and "#doc" for a record's doc, "#id" for a labelled pair)
    group: str


@dataclass
class PassageSet:
    """Passages in (source, position) order and what each source gave."""

    passages: list[Passage] = field(default_factory=list)
    files: list[dict[str, Any]] = field(default_factory=list)
    problems: list[dict[str, Any]] = field(default_factory=list)
    held_out_claims: int = 0


@lru_cache(maxsize=1)
def _sentencizer():
    import spacy

    nlp = spacy.blank("en")
    nlp.add_pipe("sentencizer")
    return nlp


def clean_lines(text: str) -> tuple[str, list[str]]:
    """``(title, text lines)``: header lines dropped, ``Text:`` prefixes removed."""
    title, lines = "", []
    for line in text.split("\n"):
        m = _TITLE.match(line)
        if m:
            title = title or m.group(1).strip()
        elif not _HEADER.match(line) and line.strip():
            lines.append(_TEXT.sub("", line).strip())
    return title, lines


def split_passages(texts: Sequence[str]) -> list[tuple[str, tuple[str, ...]]]:
    """``(title, sentences)`` of each text (see the module docstring)."""
    cleaned = [clean_lines(t) for t in texts]
    flat = [line for _, lines in cleaned for line in lines]
    docs = iter(_sentencizer().pipe(flat, batch_size=256))
    out = []
    for title, lines in cleaned:
        sents = []
        for _ in lines:
            for s in next(docs).sents:
                t = " ".join(s.text.split())
                if MIN_SENTENCE_WORDS <= n_words(t) <= MAX_SENTENCE_WORDS \
                        and any(c.isalpha() for c in t):
                    sents.append(t)
        out.append((title, tuple(sents)))
    return out


def split_all(texts: Sequence[str], processes: int = 1, chunk: int = SPLIT_CHUNK,
              progress: bool = False) -> list[tuple[str, tuple[str, ...]]]:
    """:func:`split_passages` of ``texts``, ``chunk`` texts at a time in ``processes`` spawned
    processes when there is more than one chunk (the same result in any number of processes)."""
    chunks = [texts[i:i + chunk] for i in range(0, len(texts), chunk)]
    bar = tqdm(total=len(texts), unit="passage", desc="sentences",
               disable=not progress or len(chunks) <= 1)
    out: list[tuple[str, tuple[str, ...]]] = []
    serial = processes <= 1 or len(chunks) <= 1
    with nullcontext() if serial else get_context("spawn").Pool(min(processes, len(chunks))) as mp:
        for part in (map if serial else mp.imap)(split_passages, chunks):
            out += part
            bar.update(len(part))
    bar.close()
    return out


def _kind(path: str, fmt: str) -> str:
    """``"text"``, ``"labelled"`` or ``"records"`` for a source."""
    if fmt == "text" or (fmt == "auto" and Path(path).suffix.lower() == ".txt"):
        return "text"
    if fmt in LABELLED_CONVERTERS and fmt not in CONVERTERS:
        return "labelled"
    if fmt == "auto":
        items = load_items(path, Problems(str(path)))
        first = next((it for _, it in items if isinstance(it, dict)), None)
        if first is not None and detect_labelled_format(first) not in (None, "expertqa"):
            return "labelled"
    return "records"


def read_text(path: str) -> list[tuple[int, str]]:
    """``(first line, paragraph)`` of a ``.txt`` file's blank-line-separated paragraphs."""
    data = Path(path).read_bytes() if Path(path).is_file() else None
    if data is None:
        raise InputError(path, None, None, "file not found")
    out: list[tuple[int, str]] = []
    start, lines = 0, []
    for n, raw in enumerate(data.split(b"\n"), start=1):
        try:
            line = raw.decode("utf-8-sig" if n == 1 else "utf-8")
        except UnicodeDecodeError as err:
            raise InputError(path, n, None, f"byte 0x{raw[err.start]:02x} at column "
                             f"{err.start + 1} is not valid UTF-8") from None
        if line.strip():
            start, lines = (start or n), lines + [line]
        elif lines:
            out.append((start, "\n".join(lines)))
            start, lines = 0, []
    if lines:
        out.append((start, "\n".join(lines)))
    if not out:
        raise InputError(path, None, None, "empty file: no passages")
    return out


Candidate = tuple[str, str, str]  # (text, origin, group)


def _candidates(src: Any, kind: str) -> tuple[str, list[Candidate], list[LabelledPair], Any]:
    """``(format, candidate passages, labelled pairs, skipped rows)`` of one source."""
    path, limit = src.path, src.limit
    if kind == "text":
        paras = read_text(path)[:limit]
        return "text", [(t, f"{path}:{n}", f"{path}:{n}") for n, t in paras], [], []
    if kind == "labelled":
        pairs = read_labelled(path, src.format, skip_invalid=src.skip_invalid)
        kept = list(pairs)[:limit]  # the holdout sees every claim of the file
        return pairs.format, [(p.premise, f"{path}#{p.id}", p.group) for p in kept], \
            list(pairs), pairs.skipped
    res = read_records(path, src.format, skip_invalid=src.skip_invalid)
    recs = list(zip(res.records, res.origins))[:limit]
    cands = [(d.text if not d.title or _TITLE.match(d.text) else f"Title: {d.title}\n{d.text}",
              f"{p}:{line}#{k}", rec.id)
             for rec, (p, line) in recs for k, d in enumerate(rec.docs, 1) if d.text.strip()]
    labelled: list[LabelledPair] = []
    if res.format in LABELLED_CONVERTERS:  # ExpertQA: the file's claims, for the holdout
        labelled = list(read_labelled(path, res.format, skip_invalid=True))
    return res.format, cands, labelled, res.skipped


def held_out_lines(pairs: Iterable[LabelledPair], fraction: float, seed: int) -> set[str]:
    """Normalised premises, and premise lines of 8 words or more, of the pairs whose claim
    falls in the validation split."""
    out: set[str] = set()
    for p in pairs:
        if split_of(split_key(p), fraction, seed) == "validation":
            out.add(norm(p.premise))
            out.update(norm(line) for line in p.premise.split("\n")
                       if n_words(line) >= HOLDOUT_LINE_WORDS)
    return out


def _is_held_out(text: str, held: set[str]) -> bool:
    return norm(text) in held or any(norm(line) in held for line in text.split("\n")
                                     if n_words(line) >= HOLDOUT_LINE_WORDS)


def _extra_labelled(entries: Sequence[str]) -> Iterator[LabelledPair]:
    for entry in entries:
        fmt, sep, path = entry.partition(":")
        if not sep or fmt not in LABELLED_CONVERTERS:
            fmt, path = "auto", entry
        if not Path(path).is_file():
            raise CitetrainError(f"pairs.holdout.labelled: {path} not found")
        yield from read_labelled(path, fmt, skip_invalid=True)


def read_passages(sources: Sequence[Any], holdout: Any = None, processes: int = 1,
                  progress: bool = False) -> PassageSet:
    """Passages of every source (see the module docstring); ``holdout``: a
    :class:`~citetrain.builders.spec.HoldoutSpec` or ``None``; ``processes`` split the texts into
    sentences (:func:`split_all`)."""
    out = PassageSet()
    read = []
    labelled: list[LabelledPair] = []
    for src in sources:
        if getattr(src, "synthetic", None) is not None:
            raise CitetrainError("a pairs build reads files (path, format), not synthetic records")
        fmt, cands, pairs, skipped = _candidates(src, _kind(src.path, src.format))
        read.append((src, fmt, cands))
        labelled += pairs
        out.problems += [{"path": s.path, "line": s.line, "field": s.field, "reason": s.reason,
                          "detail": s.detail} for s in skipped]
    held: set[str] = set()
    if holdout is not None:
        labelled += list(_extra_labelled(holdout.labelled))
        held = held_out_lines(labelled, holdout.fraction, holdout.seed)
        out.held_out_claims = len({split_key(p) for p in labelled
                                   if split_of(split_key(p), holdout.fraction, holdout.seed)
                                   == "validation"})
    seen: set[str] = set()
    for src, fmt, cands in read:
        facts = {"path": src.path, "format": fmt, "sha256": sha256_file(src.path),
                 "candidates": len(cands), "passages": 0, "duplicates": 0, "held_out": 0,
                 "no_sentences": 0}
        split = split_all([c[0] for c in cands], processes, progress=progress)
        for (text, origin, group), (title, sents) in zip(cands, split):
            if held and _is_held_out(text, held):
                facts["held_out"] += 1
                continue
            if not sents:
                facts["no_sentences"] += 1
                continue
            sha1 = hashlib.sha1(" ".join(sents).encode("utf-8")).hexdigest()
            if sha1 in seen:
                facts["duplicates"] += 1
                continue
            seen.add(sha1)
            facts["passages"] += 1
            out.passages.append(Passage(sha1[:16], sha1, sents, title, f"{fmt}:{src.path}",
                                        origin, group))
        out.files.append(facts)
    return out
