"""CiteEval-Auto's judge prompts and their outputs (Xu et al., appendix F.2 and F.3).

:data:`CONTEXT_TEMPLATE` (F.2, context attribution) and :data:`CITEEVAL_TEMPLATE` (F.3, citation
editing and rating, i.e. ITERCOE) are the paper's text verbatim (word for word; the blank lines
that the PDF puts between all lines are not kept); their ``[[...]]`` slots are filled
by :func:`render_context_prompt` and :func:`render_citeeval_prompt`. The answers are read back by
:func:`parse_context_labels` (``<category sentence_id="N"> 2 </category>``) and
:func:`parse_itercoe` (``<editing sentence_id="N"> <DELETE citation="6"> DELETE REASON 1
</DELETE> ... </editing>`` or ``N/A``, then ``<rating sentence_id="N"> 2 </rating>``).

Parsing never raises on model output: every statement comes back with ``status`` ``"ok"`` or
``"unparsed"`` and a ``reason``. Text outside the blocks (thinking, chatter) is ignored; when a
block occurs several times for one sentence the last one counts (a model that restates its answer).
Rendering choices the paper leaves open: a passage is ``<passage id="k">`` + ``Title: ...`` line
(when it has a title) + text; a sentence is ``<sentence sentence_id="N"> text </sentence>`` with its
marks removed; a citation line is the paper example's ``<citation sentence_id="N", sentence="...">
1, 6 </citation>`` (empty between the tags when the sentence cites nothing).
(Over 300 lines because the two templates are the paper's text, kept whole beside their parsers.)
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal, Sequence

from citetrain.analysis.editdist import Action, Edit
from citetrain.records import Doc, Record
from citetrain.text.marks import Statement

CONTEXT_TEMPLATE = """You are an expert specializing in analyzing sentences within a given model response and classifying them based on their attribution.
Your task is to carefully examine each sentence, and attribute it to one of the following categories:
<categories>
1. Query: Sentences that iterate or rephrase the user query without making new claims or involving new facts.
2. Retrieval: Sentences fully or partially supported by the retrieval context.
3. Response: Sentences solely derived from preceding sentences within the response itself, not relying on the query context, the retrieval context, or the succeeding sentences in the response. Examples include sentences that perform mathematical and logical reasoning over preceding response sentences.
4. Model: Sentences solely based on the inherent knowledge of the language model that generated the response. Knowledge is only inherent when it can NOT be found in, or reasonably inferred from, the query context, the retrieval context, or the response context. Examples include unsupported facts, and transitional expressions/summarization without any substantial claims.
</categories>
Follow the guidelines below for ambiguous cases:
<ambiguous_cases>
- For sentences involving both the retrieval context and other types of contexts, choose 2 (Retrieval).
- For single-sentence responses indicating that no answer could be found, choose 3 (Response).
- For sentences supported by its succeeding sentences but not its preceding sentences, choose from 1 (Query), 2 (Retrieval) and 4 (Model).
</ambiguous_cases>
Below is the query:
<query>
[[User Query]]
</query>
Below is the retrieval context, consisting of documents retrieved for the query:
<retrieval>
[[Retrieved Passages]]
</retrieval>
Below is the response, consisting of the sentences to evaluate:
<response>
[[Response Sentences Go Here]]
</response>
From now on you must follow this format:
<thinking> Think step by step first before classifying sentence 1 </thinking>
<category sentence_id="1"> Choose the attribution of sentence 1 from 1, 2, 3, 4 </category>
<thinking> Think step by step first before classifying sentence 2 </thinking>
<category sentence_id="2"> Choose the attribution of sentence 2 from 1, 2, 3, 4 </category>
...
<thinking> Think step by step first before classifying sentence N </thinking>
<category sentence_id="N"> Choose the attribution of sentence N from 1, 2, 3, 4 </category>
Begin!"""

CITEEVAL_TEMPLATE = """You are an expert specializing in analyzing, editing, and rating citations for sentences within a given model response.
Your task is to carefully examine the citations for each sentence, provide critical editing to the citations, and rate the citation quality.
You are allowed to use a sequence of DELETE or ADD edits for critical editing. Each edit operates on one citation.
<edits>
DELETE: You can delete a citation due to the following reasons:
DELETE REASON 1. Misleading: the citation is irrelevant, and removing this citation avoids misleading users.
DELETE REASON 2. Substandard: the citation is relevant, however another source is more helpful and should be cited instead.
DELETE REASON 3. Redundant: the citation is relevant, however other citations contain sufficient supporting evidence. Removing this citation improves conciseness.
ADD: You should only add a citation due to the following reasons:
ADD REASON 1. Evidence: existing citations lack certain required evidence, leaving the statement partially or fully unsupported. Adding this citation fills the gap with the required evidence.
ADD REASON 2. Refinement: an existing citation is relevant but substandard. This new source is more helpful and should be cited instead (an existing citation should be deleted).
ADD REASON 3. Credibility: existing citations cover all essential evidence from optimal sources. Adding this citation further enhances response credibility.
</edits>
Each edit should be passed in as <edit_name citation="{{citation}}">{{reason}}<{{edit_name}}>, where edit_name is the name of the specific edit (DELETE or ADD), {{citation}} is a citation id to be deleted or added, and {{reason}} is one of the reasons from <edits></edits>.
You should replace {{edit_name}}, {{citation}} and {{reason}} with the appropriate value.
Below are the editing guidelines. Follow the guidelines when deciding whether and how to perform an edit.
<editing_guidelines>
- Use N/A if no editing is needed.
- Add 0 as the citation id for facts that can NOT be found in, or reasonably inferred from, the query context, the retrieval context, or the response context. This attributes the unsupported facts to inherent knowledge of the language model that generated the response.
- You should aim to achieve citations of the highest standard with minimal editing. After editing, all major claims in the statement should be cited.
- After editing, the citations should cite sources that are mostly helpful, when there are multiple related sources. The final citations for each sentence typically contain at most 3 citations, but there can be exceptions.
</editing_guidelines>
After providing edits, rate the original citations for each sentence, following the guidelines below:
<rating_guidelines>
- 5 (Excellent): The sentence is fully supported by all relevant and accurate citations. There are no unnecessary, misleading, or missing citations. The citations (if present) enhance the credibility and informativeness of the sentence.
- 4 (Good): The sentence is mostly supported by accurate and relevant citations. One potentially relevant citation may be missing, or a slightly unnecessary citation may be present, but these do not significantly detract from the overall quality of the sentence.
- 3 (Fair): The sentence has some issues with citations. There might be one or few noticeable missing citation that somewhat weaken the sentence's support, or there might be several unnecessary or inaccurate citations that detract from the sentence's clarity or conciseness. Overall, the sentence's accuracy and credibility are somewhat compromised.
- 2 (Poor): The sentence has significant problems with citations. There might be multiple missing citations that leave that leave central claims unsupported, or there might be multiple unnecessary or inaccurate citations that significantly undermine the sentence's accuracy and credibility.
- 1 (Unacceptable): The sentence is completely unsupported by citations or is supported entirely by inaccurate, irrelevant, or misleading citations. The sentence is rendered misleading and unreliable.
</rating_guidelines>
Below is a hypothetical example.
<example>
Given 10 passages related to the question "Can you explain the concept of time dilation in the context of special relativity?", and a response which has the following sentence and citations: <citation sentence_id="1", sentence="Time dilation occurs because the speed of light in a vacuum is constant for all observers, regardless of their relative motion."> 1, 6 </citation>
The following example shows how you should improve the citations for this sentence:
<thinking> This claim is directly supported by passage 1. However, passage 6 does not provide any direct evidence to the question, so I should delete it to avoid misleading users. Additionally, passage 7 clearly states that time dilation occurs due to the constant speed of light in a vacuum. It will constitute to a good citation, so I will add 7 for credibility. Based on these edits, I will rate the given citations 2 (Poor). </thinking>
<editing sentence_id="1">
<DELETE citation="6"> DELETE REASON 1 </DELETE>
<ADD citation="7"> ADD REASON 3 </ADD>
</editing>
<rating sentence_id="1"> 2 </rating>
</example>
Below is the query:
<query>
[[User Question Goes Here]]
</query>
Below are the retrieved sources. Each source passage <passage> </passage> has an id for citation.
<retrieval>
[[Retrieved Passages Go Here]]
</retrieval>
Below is the response:
<response>
[[Response Goes Here]]
</response>
Below are the citations to evaluate. Each <citation> has a response sentence and its sentence id that it cites for.
<citations>
[[Citations Go Here]]
</citations>
From now on you must follow this format:
<thinking> Think step by step first before editing citations for sentence 1. </thinking>
<editing sentence_id="1"> edits for citations in sentence 1, or N/A if no editing is needed </editing>
<rating sentence_id="1"> rating for citations in sentence 1, from 1 - 5 </rating>
<thinking> Think step by step first before editing citations for sentence 2. </thinking>
<editing sentence_id="2"> edits for citations in sentence 2, or N/A if no editing is needed </editing>
<rating sentence_id="2"> rating for citations in sentence 2, from 1 - 5 </rating>
...
<thinking> Think step by step first before editing citations for sentence N. </thinking>
<editing sentence_id="N"> edits for citations in sentence N, or N/A if no editing is needed </editing>
<rating sentence_id="N"> rating for citations in sentence N, from 1 - 5 </rating>
Begin!"""

CONTEXT_LABELS: dict[int, str] = {1: "query", 2: "retrieval", 3: "response", 4: "model"}
Status = Literal["ok", "unparsed"]

# (tag, reason number) -> action, as in the F.3 <edits> list
REASONS: dict[tuple[str, int], Action] = {
    ("DELETE", 1): Action.DELETE_MISLEADING,
    ("DELETE", 2): Action.DELETE_SUBSTANDARD,
    ("DELETE", 3): Action.DELETE_REDUNDANT,
    ("ADD", 1): Action.ADD_EVIDENCE,
    ("ADD", 2): Action.ADD_REFINEMENT,
    ("ADD", 3): Action.ADD_CREDIBILITY,
}
_REASON_WORDS = {a.value.split("-")[1]: a for a in REASONS.values()}
_FLAGS = re.IGNORECASE | re.DOTALL


def _blocks(tag: str, text: str) -> dict[int, str]:
    """``{sentence_id: body}`` of every ``<tag sentence_id="N"> body </tag>``; the last one wins."""
    pat = re.compile(rf"<{tag}\s+sentence_id\s*=\s*[\"']?\s*(\d+)\s*[\"']?\s*>(.*?)</\s*{tag}\s*>",
                     _FLAGS)
    return {int(m.group(1)): m.group(2) for m in pat.finditer(text)}


_EDIT = re.compile(
    r"<\s*(DELETE|ADD)\s+citation\s*=\s*[\"']?\s*(\d+)\s*[\"']?\s*>"
    r"(.*?)<\s*/?\s*(?:DELETE|ADD)\s*>",
    _FLAGS,
)
_NA = re.compile(r"^\W*(n\s*/\s*a|none|no edits?( needed)?)\W*$", re.IGNORECASE)


def _reason(tag: str, body: str) -> Action | None:
    """The action of one edit: ``DELETE REASON 2`` (or ``REASON 2``, or the reason's name)."""
    m = re.search(r"(?:(DELETE|ADD)\s+)?REASON\s*(\d)", body, re.IGNORECASE)
    if m:
        if m.group(1) and m.group(1).upper() != tag:
            return None
        return REASONS.get((tag, int(m.group(2))))
    words = [w for w in re.findall(r"[a-z]+", body.lower()) if w in _REASON_WORDS]
    actions = {_REASON_WORDS[w] for w in words}
    if len(actions) == 1:
        action = actions.pop()
        return action if action.value.startswith(tag.lower()) else None
    return None


def parse_edits(body: str) -> tuple[list[Edit] | None, str]:
    """Edits of one ``<editing>`` body, or ``(None, reason)`` when they cannot be read."""
    if _NA.match(body.strip()) or not body.strip():
        return [], ""
    edits: list[Edit] = []
    for m in _EDIT.finditer(body):
        tag = m.group(1).upper()
        action = _reason(tag, m.group(3))
        if action is None:
            return None, f"unknown reason {m.group(3).strip()!r} for {tag}"
        edits.append((action, int(m.group(2))))
    if not edits:
        return None, "unreadable editing block"
    return edits, ""


@dataclass(frozen=True)
class StatementJudgement:
    """ITERCOE's answer for one sentence (``sentence_id`` is 1-based).

    ``rating`` is the 1-5 Likert rating, ``normalised`` = (rating − 1) / 4; both ``None`` and
    ``status == "unparsed"`` with a ``reason`` when the answer cannot be read.
    """

    sentence_id: int
    edits: tuple[Edit, ...] = ()
    rating: int | None = None
    normalised: float | None = None
    status: Status = "ok"
    reason: str = ""


def _first_int(body: str) -> int | None:
    m = re.search(r"-?\d+", body)
    return int(m.group(0)) if m else None


def parse_itercoe(text: str, n_statements: int) -> list[StatementJudgement]:
    """One :class:`StatementJudgement` per sentence ``1..n_statements`` of an ITERCOE output."""
    editing, rating = _blocks("editing", text or ""), _blocks("rating", text or "")
    out = []
    for sid in range(1, n_statements + 1):
        if sid not in editing:
            out.append(StatementJudgement(sid, status="unparsed", reason="no editing block"))
            continue
        edits, why = parse_edits(editing[sid])
        if edits is None:
            out.append(StatementJudgement(sid, status="unparsed", reason=why))
            continue
        value = _first_int(rating.get(sid, ""))
        if value is None:
            out.append(StatementJudgement(sid, tuple(edits), status="unparsed",
                                          reason="missing rating"))
        elif not 1 <= value <= 5:
            out.append(StatementJudgement(sid, tuple(edits), status="unparsed",
                                          reason=f"rating out of range: {value}"))
        else:
            out.append(StatementJudgement(sid, tuple(edits), value, (value - 1) / 4))
    return out


@dataclass(frozen=True)
class ContextJudgement:
    """F.2's answer for one sentence: ``label`` 1 query, 2 retrieval, 3 response, 4 model."""

    sentence_id: int
    label: int | None = None
    status: Status = "ok"
    reason: str = ""

    @property
    def name(self) -> str | None:
        return CONTEXT_LABELS.get(self.label) if self.label is not None else None


_LABEL_WORDS = {v: k for k, v in CONTEXT_LABELS.items()}


def parse_context_labels(text: str, n_statements: int) -> list[ContextJudgement]:
    """One :class:`ContextJudgement` per sentence ``1..n_statements`` of an F.2 output."""
    blocks = _blocks("category", text or "")
    out = []
    for sid in range(1, n_statements + 1):
        if sid not in blocks:
            out.append(ContextJudgement(sid, status="unparsed", reason="no category block"))
            continue
        value = _first_int(blocks[sid])
        if value is None:
            words = [w for w in re.findall(r"[a-z]+", blocks[sid].lower()) if w in _LABEL_WORDS]
            value = _LABEL_WORDS[words[0]] if words else None
        if value is None:
            out.append(ContextJudgement(sid, status="unparsed", reason="missing category"))
        elif value not in CONTEXT_LABELS:
            out.append(ContextJudgement(sid, status="unparsed",
                                        reason=f"category out of range: {value}"))
        else:
            out.append(ContextJudgement(sid, value))
    return out


def render_passages(docs: Sequence[Doc]) -> str:
    """``<passage id="k">`` blocks, 1-based, in ``docs`` order."""
    parts = []
    for k, d in enumerate(docs, 1):
        body = f"Title: {d.title}\n{d.text}" if d.title else d.text
        parts.append(f'<passage id="{k}">\n{body}\n</passage>')
    return "\n".join(parts)


def render_sentences(statements: Sequence[Statement]) -> str:
    """The response as numbered ``<sentence>`` lines, marks removed."""
    return "\n".join(f'<sentence sentence_id="{k}"> {s.text} </sentence>'
                     for k, s in enumerate(statements, 1))


def render_citations(statements: Sequence[Statement]) -> str:
    """One ``<citation sentence_id="N", sentence="..."> ids </citation>`` line per sentence."""
    lines = []
    for k, s in enumerate(statements, 1):
        ids = ", ".join(str(i) for i in dict.fromkeys(s.citations))
        body = f" {ids} " if ids else " "
        lines.append(f'<citation sentence_id="{k}", sentence="{s.text}">{body}</citation>')
    return "\n".join(lines)


def _fill(template: str, slots: dict[str, str]) -> str:
    for slot, value in slots.items():
        template = template.replace(slot, value)
    return template


def render_context_prompt(record: Record, statements: Sequence[Statement]) -> str:
    """The F.2 context-attribution prompt for a record and its statements."""
    return _fill(CONTEXT_TEMPLATE, {
        "[[User Query]]": record.question,
        "[[Retrieved Passages]]": render_passages(record.docs),
        "[[Response Sentences Go Here]]": render_sentences(statements),
    })


def render_citeeval_prompt(record: Record, statements: Sequence[Statement]) -> str:
    """The F.3 citation editing-and-rating (ITERCOE) prompt for a record and its statements."""
    return _fill(CITEEVAL_TEMPLATE, {
        "[[User Question Goes Here]]": record.question,
        "[[Retrieved Passages Go Here]]": render_passages(record.docs),
        "[[Response Goes Here]]": render_sentences(statements),
        "[[Citations Go Here]]": render_citations(statements),
    })
