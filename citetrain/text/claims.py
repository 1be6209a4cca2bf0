"""Atomic claims of a sentence with positional citation marks (ALiiCE, Xu et al. 2024/2025).

Two semantics (``atomic_claims_many(..., semantics=...)``): ``"authors"`` (default) reproduces the
authors' released ``myparser.py`` (:mod:`citetrain.text.claims_authors`); ``"paper"`` is the
paper's text, as follows.

"ALiiCE: Evaluating Positional Fine-grained Citation Generation", section 3.2 (Algorithm 1) and
appendix C. Each citation group of a sentence gets the part of the sentence it supports:

1. **Text cleaning.** Marks are removed and so is every character that is not a word character,
   whitespace or a comma (the authors' ``text_cleaning`` regex ``[^\\w\\s\\[\\],]``): "Grey's" ->
   "Greys", "Dr." -> "Dr", the final period goes, commas stay. The paper's claims keep their commas
   ("Greys Anatomy, the characters", "England, Scotland, and Ireland"), so commas are kept and parsed
   as ``punct`` tokens; a claim never begins or ends with a dangling comma (it is stripped).
2. **Dependency parse** with spaCy (:func:`~citetrain.text.spacy_model.load_spacy`), forced to one
   tree (every token but the first is marked "not a sentence start"; when spaCy would not split, the
   parse is the unconstrained one).
3. **Citation nodes.** A group attaches to the nearest word *before* it (the first word when the
   sentence opens with marks), i.e. the last non-punctuation token of that whitespace word. Groups
   on the same word share that node and its claim.
4. **Tree surgery.** For each cited node *i*, on a fresh copy of the tree, for each other cited
   node *j* (sentence order) still in the copy, with LCA = lowest common ancestor and T_i / T_j the
   LCA's children whose subtrees hold *i* / *j*:

   * LCA = i: remove T_j.
   * LCA = j: replace j's subtree by T_i (j's place now holds only i's branch, with no relation
     label, as in the authors' parser; when j has become the root, T_i becomes the root).
   * otherwise, with T_c the LCA's children between T_i and T_j that are ``cc`` or a comma, and
     "intro(T)" meaning: the LCA is the current root, T hangs on it by ``prep`` / ``advcl`` and T holds
     the sentence's first word (an introductory phrase or clause):

     - T_c present, T_i before T_j: intro(T_i) -> the root becomes T_i; else remove T_j and T_c.
     - T_c present, T_i after T_j: LCA is the root -> intro(T_j) ? remove T_j and T_c : the root
       becomes T_i; LCA not the root -> the LCA keeps T_i as its only child.
     - no T_c: LCA is the root -> the root becomes T_i; else remove T_j.

5. The kept tokens, in sentence order, are the claim.

Step 4's "otherwise" branch is appendix C as the authors' released parser (``myparser.py`` of
github.com/ylXuu/ALiiCE) implements it. Read literally, the appendix text (whose T_i / T_j
subscripts are garbled in the extracted PDF) has no comma in T_c and no first-word test, and then
turns the parse of Figure 12 — identical to en_core_web_sm 3.8's — into the claim "on 20 June 1837"
instead of the figure's "Queen Victoria became Queen of the United Kingdom on 20 June 1837".

**Fallback to sentence level** (one claim: the mark-free sentence with every id of the sentence, as
ALCE scores it): ``too_long`` (more than ``max_words`` words without marks), ``single_group`` (one
citation group, or all groups on one word: nothing to split), ``root_cited`` (a group attaches to
the root, which the authors read as a parse error) and ``parse_failed`` (no token for a group).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Iterable, Literal, Sequence

from citetrain.errors import CitetrainError

from citetrain.text.marks import Statement, parse_marks

TOO_LONG = "too_long"
SINGLE_GROUP = "single_group"
ROOT_CITED = "root_cited"
PARSE_FAILED = "parse_failed"
FALLBACKS = (TOO_LONG, SINGLE_GROUP, ROOT_CITED, PARSE_FAILED)

_DROP = re.compile(r"[^\w\s,]")
_WORDY = re.compile(r"\w")
_COORD = ("cc",)
_INTRO = ("prep", "advcl")


@dataclass(frozen=True)
class Claim:
    """The text a citation group supports, the group's ids and which groups (0-based) it covers."""

    text: str
    ids: tuple[int, ...]
    groups: tuple[int, ...]


@dataclass(frozen=True)
class ClaimParse:
    """A sentence's atomic claims: one per citation group in order, or one claim on fallback.

    ``fallback`` names why the whole sentence was used (one of :data:`FALLBACKS`; under
    ``semantics="authors"`` one of :data:`~citetrain.text.claims_authors.AUTHORS_FALLBACKS`),
    else ``None``; ``cleaned`` is the text that was parsed ("" when no parse was needed); a
    sentence without marks has no claims.
    """

    statement: Statement
    claims: tuple[Claim, ...]
    fallback: str | None = None
    cleaned: str = ""

    @property
    def sentence(self) -> str:
        return self.statement.raw


@dataclass
class _Plan:
    """A sentence before parsing: cleaned words, their char spans and each group's word."""

    statement: Statement
    cleaned: str = ""
    spans: list[tuple[int, int]] = field(default_factory=list)
    group_word: list[int] = field(default_factory=list)
    fallback: str | None = None


def _sentence_level(st: Statement, reason: str | None) -> ClaimParse:
    """One claim: the mark-free sentence with all its ids (ALCE's unit)."""
    if not st.groups:
        return ClaimParse(st, (), None)
    claim = Claim(st.text, st.citations, tuple(range(len(st.groups))))
    return ClaimParse(st, (claim,), reason)


def _plan(sentence: str, max_words: int) -> _Plan:
    """Clean the sentence word by word and locate each group's word in the cleaned text."""
    st = parse_marks(sentence)
    plan = _Plan(st)
    if len(st.groups) < 2:
        plan.fallback = SINGLE_GROUP
        return plan
    if st.n_words > max_words:
        plan.fallback = TOO_LONG
        return plan
    words = st.text.split()
    kept: list[str] = []
    to_kept: list[int | None] = []  # original word index -> index among kept words
    wordy: list[bool] = []  # whether the cleaned word has a word character (not just a comma)
    for w in words:
        c = _DROP.sub("", w)
        to_kept.append(len(kept) if c else None)
        wordy.append(bool(_WORDY.search(c)))
        if c:
            kept.append(c)
    if not any(wordy):
        plan.fallback = PARSE_FAILED
        return plan
    pos = 0
    for w in kept:
        plan.spans.append((pos, pos + len(w)))
        pos += len(w) + 1
    plan.cleaned = " ".join(kept)
    for g in st.groups:
        w = min(max(g.word_index - 1, 0), len(words) - 1)
        # a word emptied by cleaning ("&", "-", ",") hands its group to the nearest word before it
        before = [to_kept[k] for k in range(w, -1, -1) if wordy[k]]
        after = [to_kept[k] for k in range(w, len(words)) if wordy[k]]
        plan.group_word.append((before or after)[0])
    if len(set(plan.group_word)) < 2:
        plan.fallback = SINGLE_GROUP
    return plan


class _Tree:
    """A mutable dependency tree over token indices."""

    def __init__(self, root: int, children: dict[int, list[int]], dep: dict[int, str]) -> None:
        self.root = root
        self.children = children
        self.dep = dep

    def copy(self) -> "_Tree":
        return _Tree(self.root, {k: list(v) for k, v in self.children.items()}, dict(self.dep))

    def nodes(self, top: int | None = None) -> set[int]:
        """Tokens in the subtree of ``top`` (the whole current tree by default)."""
        out, stack = set(), [self.root if top is None else top]
        while stack:
            n = stack.pop()
            out.add(n)
            stack.extend(self.children[n])
        return out

    def path(self, node: int) -> list[int]:
        """Root-to-node path in the current tree ([] when the node is no longer in it)."""
        parent = {c: p for p in self.nodes() for c in self.children[p]}
        if node != self.root and node not in parent:
            return []
        out = [node]
        while out[-1] != self.root:
            out.append(parent[out[-1]])
        return out[::-1]

    def remove(self, parent: int, *subs: int) -> None:
        self.children[parent] = [c for c in self.children[parent] if c not in subs]


def _step(t: _Tree, i: int, j: int, text: Sequence[str]) -> None:
    """Modify ``t`` so that it no longer mixes j's claim into i's (Algorithm 1 + appendix C)."""
    pi, pj = t.path(i), t.path(j)
    if not pj:  # j was removed by an earlier step
        return
    k = 0
    while k + 1 < min(len(pi), len(pj)) and pi[k + 1] == pj[k + 1]:
        k += 1
    lca = pi[k]
    if lca == i:
        t.remove(i, pj[k + 1])
        return
    ti = pi[k + 1]
    if lca == j:
        if lca == t.root:
            t.root = ti
        else:
            parent = pj[k - 1]
            t.children[parent] = [ti if c == j else c for c in t.children[parent]]
            t.dep[ti] = ""  # the authors' parser re-attaches T_i without a relation
        return
    tj = pj[k + 1]
    lo, hi = sorted((ti, tj))
    conj = [c for c in t.children[lca] if lo < c < hi and (t.dep[c] in _COORD or text[c] == ",")]
    at_root = lca == t.root

    def intro(sub: int) -> bool:
        return at_root and t.dep[sub] in _INTRO and 0 in t.nodes(sub)

    if not conj:
        if at_root:
            t.root = ti
        else:
            t.remove(lca, tj)
    elif ti < tj:
        if intro(ti):
            t.root = ti
        else:
            t.remove(lca, tj, *conj)
    elif at_root:
        if intro(tj):
            t.remove(lca, tj, *conj)
        else:
            t.root = ti
    else:
        t.children[lca] = [ti]


def _render(doc, keep: Iterable[int]) -> str:
    """Kept tokens in sentence order; original spacing between neighbours, one space across gaps."""
    idx = sorted(keep)
    parts = []
    for a, b in zip(idx, idx[1:] + [None]):
        parts.append(doc[a].text)
        if b is not None:
            parts.append(doc[a].whitespace_ if b == a + 1 else " ")
    out = re.sub(r"\s+,", ",", "".join(parts))
    return re.sub(r"\s+", " ", out).strip(" ,")


def _claims_from_doc(plan: _Plan, doc) -> ClaimParse:
    """Run the tree surgery for every cited node of a parsed sentence."""
    st = plan.statement
    node_of: list[int] = []
    node_at: dict[int, int | None] = {}  # per cleaned word (at most max_words), not per group
    for w in plan.group_word:
        if w not in node_at:
            a, b = plan.spans[w]
            toks = [t.i for t in doc if t.idx >= a and t.idx + len(t) <= b]
            words = [i for i in toks if not doc[i].is_punct] or toks
            node_at[w] = words[-1] if words else None
        node = node_at[w]
        if node is None:
            return _sentence_level(st, PARSE_FAILED)
        node_of.append(node)
    roots = [t.i for t in doc if t.head.i == t.i]
    if len(roots) != 1:
        return _sentence_level(st, PARSE_FAILED)
    if roots[0] in node_of:
        return _sentence_level(st, ROOT_CITED)
    children: dict[int, list[int]] = {t.i: [] for t in doc}
    for t in doc:
        if t.head.i != t.i:
            children[t.head.i].append(t.i)
    tree = _Tree(roots[0], children, {t.i: t.dep_ for t in doc})
    text = [t.text for t in doc]
    cited = sorted(set(node_of))
    claim_of: dict[int, str] = {}
    for i in cited:
        t = tree.copy()
        for j in cited:
            if j != i:
                _step(t, i, j, text)
        claim_of[i] = _render(doc, t.nodes())
    claims = tuple(Claim(claim_of[n], g.ids, (k,))
                   for k, (n, g) in enumerate(zip(node_of, st.groups)))
    return ClaimParse(st, claims, None, plan.cleaned)


def _parse(nlp, texts: list[str], batch_size: int):
    """Docs for ``texts``, each forced to be one sentence (one dependency tree)."""
    docs = []
    for text in texts:
        d = nlp.make_doc(text)
        for tok in d[1:]:
            tok.is_sent_start = False
        docs.append(d)
    return list(nlp.pipe(docs, batch_size=batch_size))


SEMANTICS = ("authors", "paper")
MAX_CHARS = 1_000_000  # spaCy's default max_length: a longer sentence is not parsed (error E088)


def _nlp(nlp):
    """The pipeline given, else :func:`~citetrain.text.spacy_model.load_spacy`'s."""
    if nlp is not None:
        return nlp
    from citetrain.text.spacy_model import load_spacy

    return load_spacy()


def _paper_many(sentences: Sequence[str], nlp, max_words: int, batch_size: int
                ) -> list[ClaimParse]:
    plans = [_plan(s, max_words) for s in sentences]
    for p in plans:  # beyond spaCy's length limit (E088): sentence level, as a long sentence
        if p.fallback is None and len(p.cleaned) > MAX_CHARS:
            p.fallback = TOO_LONG
    todo = [p for p in plans if p.fallback is None]
    docs = {id(p): d for p, d in zip(todo, _parse(_nlp(nlp), [p.cleaned for p in todo], batch_size))
            } if todo else {}
    return [_claims_from_doc(p, docs[id(p)]) if p.fallback is None
            else _sentence_level(p.statement, p.fallback) for p in plans]


def _authors_many(sentences: Sequence[str], nlp, max_words: int, batch_size: int
                  ) -> list[ClaimParse]:
    from citetrain.text.claims_authors import (
        TOO_LONG as LONG, AuthorsParse, alce_parse, authors_claims, parse_docs,
    )

    plans = [AuthorsParse(s, max_words) for s in sentences]
    for p in plans:  # beyond spaCy's length limit (E088): ALCE's parse, as a long sentence
        if p.early is None and len(p.text) > MAX_CHARS:
            p.early = (LONG, [alce_parse(p.sentence)])
    todo = [p for p in plans if p.early is None]
    texts = [p.text for p in todo]
    docs = {id(p): d for p, d in zip(todo, parse_docs(_nlp(nlp), texts, batch_size))} if todo else {}
    out = []
    for p in plans:
        fallback, pairs = authors_claims(p, docs.get(id(p)))
        claims = tuple(Claim(text, tuple(ids), ()) for text, ids in pairs)
        out.append(ClaimParse(p.statement, claims, fallback, p.cleaned))
    return out


def atomic_claims_many(
    sentences: Sequence[str], nlp=None, max_words: int = 50, batch_size: int = 256,
    semantics: Literal["authors", "paper"] = "authors",
) -> list[ClaimParse]:
    """:func:`atomic_claims` for many sentences, parsed together with ``nlp.pipe``.

    ``semantics="authors"`` (default): the released ``myparser.py``
    (:mod:`citetrain.text.claims_authors`: punctuation stripped from word ends, spaCy's own
    sentence split, identical claims merged; ``groups`` is empty and ``fallback`` is one of
    ``too_long``, ``root_cited``, ``citation_lost``, ``spacy_split``). ``"paper"``: the paper's
    Algorithm 1 + appendix C as this module's docstring states (one claim per group).
    """
    if semantics not in SEMANTICS:
        raise CitetrainError(f"semantics must be 'authors' or 'paper', got {semantics!r}")
    many = _authors_many if semantics == "authors" else _paper_many
    return many(sentences, nlp, max_words, batch_size)


def atomic_claims(sentence_with_marks: str, nlp=None, max_words: int = 50,
                  semantics: Literal["authors", "paper"] = "authors") -> ClaimParse:
    """The atomic claims of one sentence (see the module docstring and
    :mod:`citetrain.text.claims_authors`).

    ``nlp`` is a spaCy pipeline with a parser (default :func:`load_spacy`); sentences with more than
    ``max_words`` words fall back to sentence level, as the paper does (marks removed under
    ``"paper"``, marks counted on the raw sentence under ``"authors"``, as the released code does).
    """
    return atomic_claims_many([sentence_with_marks], nlp=nlp, max_words=max_words,
                              semantics=semantics)[0]
