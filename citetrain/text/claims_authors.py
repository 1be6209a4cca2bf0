"""ALiiCE atomic claims as the authors' released parser computes them (``semantics="authors"``).

Xu et al., "ALiiCE: Evaluating Positional Fine-grained Citation Generation" (NAACL 2025): the
paper's tables come from ``myparser.py`` of github.com/ylXuu/ALiiCE, which differs from the paper's
text (:mod:`citetrain.text.claims`, ``semantics="paper"``). This module reproduces its behaviour
(not its code), step by step:

1. No ``[<digits>]`` mark: no claim. More than ``max_words`` whitespace words (marks included,
   counted on the raw sentence): ALCE's parse — the raw sentence without marks, every id
   (``too_long``).
2. **Cleaning**: every character that is not a word character, whitespace, ``[``, ``]`` or ``,``
   is deleted ("Grey's" -> "Greys", "e.g." -> "eg", "$120" -> "120", "2001[6]," stays).
3. **Words**: the cleaned sentence is split on whitespace and each piece at its marks; adjacent
   marks form a group, which attaches to the word before it (to word 0 when the sentence opens
   with marks; a later group on the same word replaces the earlier one). Each word loses
   punctuation at both ends (``str.strip(string.punctuation)``), so "England," -> "England" and a
   lone "," becomes an empty word.
4. **Parse** of the words joined by single spaces (empty words leave double spaces, which spaCy
   keeps as whitespace tokens), with spaCy's own sentence split (not forced to one tree).
5. **Matching**: a group's node is, among the tokens ``t`` with ``word in t.text or t.text in
   word``, the one nearest the word's index (the first on a tie); an empty word matches every
   token. No token at all: the cleaned sentence with no ids (``citation_lost``). Two groups on
   one token: the later one wins.
6. **Tree**: the tree under the *last* token labelled ``ROOT``; when spaCy split the sentence,
   groups outside that tree get no claim (``spacy_split``). A cited root: ALCE's parse of the
   cleaned sentence (``root_cited``).
7. **Surgery** for each cited node *i* on a fresh copy, for each other cited node *j* still in it,
   as appendix C (LCA = i: drop i's branch towards j; LCA = j: i's branch re-hung unlabelled on j's
   parent in j's place — on the root itself when j is the root, which adds a second link to that
   branch; else the ``cc``/comma and ``prep``/``advcl`` rules). The LCA is found by counting the
   children that lead to *i* or *j*, links counted twice included.
8. **Claim**: the texts of the kept tokens in token order joined by single spaces (whitespace
   tokens included); claims with identical text are merged, the later group's ids kept, in the
   position of the first.

The parse differs from the released code in one point only: where the released code would raise
``KeyError`` (a relation looked up on a branch linked twice and then removed once), the missing
relation is read as none.
"""
from __future__ import annotations

import re
import string
from typing import Any, Sequence

from citetrain.text.marks import Statement, alce_remove, parse_marks

TOO_LONG = "too_long"
ROOT_CITED = "root_cited"
CITATION_LOST = "citation_lost"
SPACY_SPLIT = "spacy_split"
AUTHORS_FALLBACKS = (TOO_LONG, ROOT_CITED, CITATION_LOST, SPACY_SPLIT)

FULL_MARK = re.compile(r"\[\d+\]")
_NOT_KEPT = re.compile(r"[^\w\s\[\],]")


def authors_clean(sentence: str) -> str:
    """Step 2: drop every character but word characters, whitespace, brackets and commas."""
    return _NOT_KEPT.sub("", sentence)


def alce_parse(sentence: str) -> tuple[str, list[int]]:
    """ALCE's sentence-level unit as the released parser builds it: mark-free text, every id."""
    return alce_remove(sentence), [int(m[1:-1]) for m in FULL_MARK.findall(sentence)]


def authors_words(cleaned: str) -> tuple[list[str], dict[int, list[int]]]:
    """Step 3: the words (ends stripped of punctuation) and ``{word index: group ids}``."""
    pieces: list[str | list[int]] = []
    for chunk in cleaned.split():
        pos = 0
        for m in FULL_MARK.finditer(chunk):
            if m.start() > pos:
                pieces.append(chunk[pos:m.start()])
            ids = [int(m.group()[1:-1])]
            if pieces and isinstance(pieces[-1], list):
                pieces[-1] = pieces[-1] + ids  # adjacent marks: one group
            else:
                pieces.append(ids)
            pos = m.end()
        if pos < len(chunk):
            pieces.append(chunk[pos:])
    words: list[str] = []
    groups: dict[int, list[int]] = {}
    for k, piece in enumerate(pieces):
        if isinstance(piece, list):
            groups[0 if k == 0 else len(words) - 1] = piece
        else:
            words.append(piece.strip(string.punctuation))
    return words, groups


class _Node:
    """A token of the tree being cut: its children (a branch may be linked twice) and relations."""

    __slots__ = ("i", "text", "kids", "rel")

    def __init__(self, i: int, text: str) -> None:
        self.i, self.text = i, text
        self.kids: list[_Node] = []
        self.rel: dict[_Node, str | None] = {}

    def link(self, kid: "_Node", rel: str | None) -> None:
        self.kids.append(kid)
        self.rel[kid] = rel

    def unlink(self, kid: "_Node") -> None:
        if kid in self.kids:
            self.rel.pop(kid, None)
            self.kids.remove(kid)

    def find(self, i: int) -> "_Node | None":
        """The node with token index ``i`` in this subtree."""
        stack = [self]
        while stack:
            n = stack.pop()
            if n.i == i:
                return n
            stack.extend(n.kids)
        return None

    def branch(self, i: int) -> "_Node | None":
        """The first child whose subtree holds token ``i`` (this node when it is ``i``)."""
        if self.i == i:
            return self
        return next((k for k in self.kids if k.find(i) is not None), None)

    def parent_of(self, node: "_Node") -> "_Node | None":
        """``node``'s first parent in depth-first order, children in order (this node when
        ``node`` is it)."""
        if node is self:
            return self
        for k in self.kids:
            if k is node:
                return self
            found = k.parent_of(node)
            if found is not None:
                return found
        return None

    def copy(self) -> "_Node":
        out = _Node(self.i, self.text)
        for k in self.kids:
            out.link(k.copy(), self.rel[k])
        return out

    def tokens(self) -> dict[int, str]:
        out, stack = {}, [self]
        while stack:
            n = stack.pop()
            out[n.i] = n.text
            stack.extend(n.kids)
        return out


def _lca(node: _Node, a: _Node, b: _Node) -> _Node | None:
    """Lowest common ancestor by counting the children that lead to ``a`` or ``b``."""
    if node is a or node is b:
        return node
    found = [x for x in (_lca(k, a, b) for k in node.kids) if x is not None]
    return node if len(found) > 1 else (found[0] if found else None)


def _cut(root: _Node, ni: _Node, nj: _Node) -> _Node:
    """One (i, j) step of step 7 on the tree under ``root``; returns the (possibly new) root."""
    lca = _lca(root, ni, nj)
    assert lca is not None
    if lca is ni:
        ni.unlink(ni.branch(nj.i))
        return root
    ti = lca.branch(ni.i)
    if lca is nj:
        father = root.parent_of(lca)
        father.link(ti, None)
        father.unlink(lca)
        return root
    tj = lca.branch(nj.i)
    lo, hi = sorted((ti.i, tj.i))
    conj = [k for k in lca.kids
            if lo < k.i < hi and (k.text == "," or lca.rel.get(k) in ("cc", "CC"))]

    def intro(sub: _Node) -> bool:
        return lca.rel.get(sub) in ("prep", "advcl") and sub.find(0) is not None

    if not conj:
        if lca is root:
            return ti
        lca.unlink(tj)
    elif ti.i < tj.i:
        if lca is root and intro(ti):
            return ti
        for k in (tj, *conj):
            lca.unlink(k)
    elif lca is root:
        if not intro(tj):
            return ti
        for k in (tj, *conj):
            lca.unlink(k)
    else:
        rel = lca.rel.get(ti)
        lca.kids, lca.rel = [], {}
        lca.link(ti, rel)
    return root


class AuthorsParse:
    """Step 1-3 of a sentence: what is parsed, or the released parser's early answer."""

    def __init__(self, sentence: str, max_words: int) -> None:
        self.sentence = sentence
        self.statement: Statement = parse_marks(sentence)
        self.early: tuple[str | None, list[tuple[str, list[int]]]] | None = None
        self.cleaned = ""
        self.words: list[str] = []
        self.groups: dict[int, list[int]] = {}
        if FULL_MARK.search(sentence) is None:
            self.early = (None, [])
        elif len(sentence.split()) > max_words:
            self.early = (TOO_LONG, [alce_parse(sentence)])
        else:
            self.cleaned = authors_clean(sentence)
            self.words, self.groups = authors_words(self.cleaned)

    @property
    def text(self) -> str:
        return " ".join(self.words)


def nearest_match(texts: Sequence[str], word: str, w: int) -> int | None:
    """Step 5's node for the word at index ``w``: the index of the token nearest ``w`` whose text
    holds ``word`` or is held by it (the lower one on a tie), ``None`` when none does.

    Searched outward from ``w``: a word's own token lies near its index, so this costs the
    distance to the match, not a pass over every token per group."""
    below, above = min(w, len(texts) - 1), max(w + 1, 0)
    while below >= 0 or above < len(texts):
        if below >= 0 and (above >= len(texts) or w - below <= above - w):
            k, below = below, below - 1
        else:
            k, above = above, above + 1
        if word in texts[k] or texts[k] in word:
            return k
    return None


def authors_claims(p: AuthorsParse, doc: Any) -> tuple[str | None, list[tuple[str, list[int]]]]:
    """Steps 5-8 on the parsed words: the fallback (or ``None``) and ``[(claim, ids), ...]``."""
    if p.early is not None:
        return p.early
    cite: dict[int, list[int]] = {}
    texts = [t.text for t in doc]
    for w, ids in p.groups.items():
        hit = nearest_match(texts, p.words[w], w) if texts else None  # no token: no word read
        if hit is None:
            return CITATION_LOST, [(p.cleaned, [])]
        cite[hit] = ids
    roots = [t.i for t in doc if t.dep_ == "ROOT"]
    nodes = {t.i: _Node(t.i, t.text) for t in doc}
    for t in doc:
        if t.dep_ != "ROOT":
            nodes[t.head.i].link(nodes[t.i], t.dep_)
    tree = nodes[roots[-1]]
    if tree.i in cite:
        return ROOT_CITED, [alce_parse(p.cleaned)]
    out: dict[str, list[int]] = {}
    reached = 0
    for i, ids in cite.items():
        root = tree.copy()
        ni = root.find(i)
        if ni is None:
            continue
        reached += 1
        for j in cite:
            nj = root.find(j) if j != i else None
            if nj is not None:
                root = _cut(root, ni, nj)
        out[" ".join(text for _, text in sorted(root.tokens().items()))] = ids
    return (SPACY_SPLIT if reached < len(cite) else None), list(out.items())


def parse_docs(nlp: Any, texts: Sequence[str], batch_size: int) -> list[Any]:
    """spaCy docs of ``texts`` with spaCy's own sentence boundaries (the released parser's call)."""
    return list(nlp.pipe(texts, batch_size=batch_size))
