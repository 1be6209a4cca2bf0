"""LongBench-Cite citation recall, precision and F1 (Zhang et al. 2024, "LongCite: Enabling LLMs
to Generate Fine-grained Citations in Long-context QA", §4; THUDM/LongCite ``auto_scorer.py`` and
``eval_cite.py``).

A record's statements are LongCite's (``record.longcite``, read by the ``longcite`` format), or
else the output's sentences with the cited docs' texts as their snippets; only the first
``max_statements`` (40) count. With the three judgements of
:mod:`~citetrain.metrics.longbench_judges`:

* statement score: cited — support(question, s, C) with C the statement's snippets joined by a
  blank line and stripped (C empty: 0, no judgement asked); uncited — 1 − need_citation(s);
* record recall R = mean statement score (0 without statements);
* record precision P = mean over every citation c of every statement of relevance(s, c)
  (0 without citations); record F1 = 2PR / (P + R) (0 when both are 0);
* dataset row d = 100 × the mean of R, P and F1 over the records whose ``dataset`` is one of
  ``datasets`` and contains ``d`` ("multifieldqa" thus covers multifieldqa_en and _zh);
* ``longbench_cite_rec`` / ``_prec`` / ``_f1`` = the mean of the dataset rows other than
  multifieldqa_en and multifieldqa_zh (the authors' average).

Two choices where the authors' script has none: a dataset row without records is n/a and left out
of the average (their mean of nothing is nan, which makes the average nan too); when no record
belongs to any of ``datasets`` (a file without ``dataset``), the scores are the mean over all
records. Every record is judged and listed in ``per_record``, in or out of a dataset row.

A third, for an LLM judge: a statement one of whose verdicts is still unreadable after its tries
is unscored (the authors' script stops there), so R and P above are over a record's scored
statements only, and a record with none scored is left out of the rows and the average
(``strict`` restores the error; :func:`longbench_cite`).
"""
from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any, Sequence

from citetrain.llm.cache import judge_cache_path
from citetrain.llm.client import CachedChat, ChatClient
from citetrain.llm.estimate import RequestPlan
from citetrain.metrics.base import MetricResult, f1, mean
from citetrain.metrics.longbench_judges import (
    Ask, LLMJudge, NeedRule, NLIJudge, Verdict, load_templates,
)
from citetrain.metrics.rules import at_least, between, checked, one_of
from citetrain.nli.engine import NLIEngine
from citetrain.records import Record
from citetrain.text.statements import statements as split_statements

DATASETS = ("longbench-chat", "multifieldqa_en", "multifieldqa_zh", "multifieldqa", "hotpotqa",
            "dureader", "gov_report")
NOT_AVERAGED = ("multifieldqa_en", "multifieldqa_zh")
MAX_STATEMENTS = 40
_CITE_BLOCK = re.compile(r"<cite>.*?</cite>", re.DOTALL)


def _judge_rule(value: Any) -> str | None:
    ok = value == "nli" or (isinstance(value, str) and value.startswith("llm:") and value[4:])
    return None if ok else f"must be 'nli' or 'llm:MODEL', got {value!r}"


def plain_response(prediction: str) -> str:
    """The response as the need_citation judge reads it: ``<cite>...</cite>`` blocks and
    ``<statement>`` tags removed."""
    text = _CITE_BLOCK.sub("", prediction)
    return text.replace("<statement>", "").replace("</statement>", "")


def record_statements(rec: Record) -> tuple[str, list[tuple[str, list[str]]]]:
    """The response and its statements with their snippets: LongCite's (``rec.longcite``, while
    the record's output is still the one they were read with), or the output's sentences with
    their cited docs' texts (ids out of range left out): a refined or generated output."""
    lc = (rec.model_extra or {}).get("longcite")
    if (isinstance(lc, dict) and isinstance(lc.get("statements"), list)
            and lc.get("output", rec.output) == rec.output):
        sts = [(str(s.get("statement", "")), [str(c.get("cite", "")) for c in s.get("citation") or []])
               for s in lc["statements"]]
        return str(lc.get("prediction") or ""), sts
    parsed = split_statements(rec.output, first_line_only=False)
    sts = [(st.text, [rec.docs[i - 1].text for i in st.citations if 1 <= i <= len(rec.docs)])
           for st in parsed]
    return " ".join(st.text for st in parsed), sts


def _asks(rec: Record, max_statements: int | None) -> tuple[list[dict[str, Any]], list[Ask], int]:
    """A record's statement rows (without scores; ``asks``: their judgements' indices in the
    record's list), the judgements they need, and the count of statements before the cut."""
    prediction, sts = record_statements(rec)
    total = len(sts)
    if max_statements is not None:
        sts = sts[:max_statements]
    response = plain_response(prediction)
    rows, asks = [], []
    for i, (text, cites) in enumerate(sts):
        where = f"record {rec.id}, statement {i}"
        row: dict[str, Any] = {"id": rec.id, "statement": i, "text": text.strip(),
                               "citations": len(cites), "asks": []}
        if cites:
            context = "\n\n".join(cites).strip()
            if context:
                row["asks"].append(len(asks))
                asks.append(Ask("support", rec.question, text, context, where=where))
        else:
            earlier = " ".join(t.strip() for t, _ in sts[:i])
            row["asks"].append(len(asks))
            asks.append(Ask("need_citation", rec.question, text, response, earlier, where))
        for c in cites:
            row["asks"].append(len(asks))
            asks.append(Ask("relevance", rec.question, text, c, where=where))
        rows.append(row)
    return rows, asks, total


def _score_statement(row: dict[str, Any], mine: list[Verdict]) -> bool:
    """Fill one statement row from its verdicts; ``False`` (row marked ``unscored``) when one of
    them has no score."""
    answers = [v.answer for v in mine if v.answer is not None]
    if any(v.score is None for v in mine):
        row.update(support=None, need_citation=None, recall=None, relevance=None, unscored=True)
        row.update({"answers": answers} if answers else {})
        return False
    n = row["citations"]
    rel = [float(v.score) for v in mine[len(mine) - n:]] if n else []  # type: ignore[arg-type]
    if n:
        first = float(mine[0].score) if len(mine) > n else 0.0  # type: ignore[arg-type]
        row.update(support=first, need_citation=None, recall=first)
    else:
        need = float(mine[0].score)  # type: ignore[arg-type]
        row.update(support=None, need_citation=need, recall=1.0 - need)
    row["relevance"] = rel
    row.update({"answers": answers} if answers else {})
    return True


def _score_record(rid: str, rows: list[dict[str, Any]], verdicts: list[Verdict]) -> dict[str, Any]:
    """Fill the statement rows from their verdicts; the record's recall, precision and F1 over
    its scored statements (``None`` when it has statements and none is scored)."""
    recall_terms, relevance, unscored = [], [], []
    for row in rows:
        if _score_statement(row, [verdicts[k] for k in row.pop("asks")]):
            recall_terms.append(row["recall"])
            relevance.extend(row["relevance"])
        else:
            unscored.append(row["statement"])
    entry: dict[str, Any] = {"id": rid}
    if rows and len(unscored) == len(rows):
        entry.update(citation_recall=None, citation_precision=None, citation_f1=None)
    else:
        r, p = mean(recall_terms), mean(relevance)
        entry.update(citation_recall=r, citation_precision=p, citation_f1=f1(p, r))
    entry.update(n_statements=len(rows), n_citations=len(relevance), unscored=unscored)
    return entry


Sums = list  # [records, Σ recall, Σ precision, Σ F1]
_KEYS = ("recall", "precision", "f1")


def _sums(entries: Sequence[dict[str, Any]]) -> Sums:
    """[count, Σ recall, Σ precision, Σ F1] of per-record entries, those without a score (every
    statement unscored) left out."""
    entries = [e for e in entries if e["citation_recall"] is not None]
    return [len(entries), *(math.fsum(e[f"citation_{k}"] for e in entries) for k in _KEYS)]


def dataset_sums(per_record: Sequence[dict[str, Any]], datasets: Sequence[str]
                 ) -> dict[str, Sums]:
    """Per dataset name, the sums over the records whose ``dataset`` is one of ``datasets`` and
    contains the name. Sums, not means, so that chunks of records add up
    (:mod:`citetrain.metrics.merge`)."""
    kept = [e for e in per_record if e.get("dataset") in datasets]
    return {name: _sums([e for e in kept if name in e["dataset"]]) for name in datasets}


def dataset_rows(sums: dict[str, Sums]) -> dict[str, dict[str, Any]]:
    """The dataset rows: records and 100 × mean recall, precision, F1 (``None`` without records)."""
    return {name: {"records": s[0], **{k: 100 * s[j + 1] / s[0] if s[0] else None
                                       for j, k in enumerate(_KEYS)}}
            for name, s in sums.items()}


def average(sums: dict[str, Sums], all_records: Sums) -> dict[str, float]:
    """The authors' average: the mean of the dataset rows with records, multifieldqa_en and _zh
    left out; 100 × the mean over ``all_records`` when no row has a record."""
    rows = dataset_rows(sums)
    used = [n for n, r in rows.items() if n not in NOT_AVERAGED and r["records"]]
    if used:
        vals = {k: mean([rows[n][k] for n in used]) for k in _KEYS}
    else:
        n = all_records[0]
        vals = {k: 100 * all_records[j + 1] / n if n else 0.0 for j, k in enumerate(_KEYS)}
    return {"longbench_cite_rec": vals["recall"], "longbench_cite_prec": vals["precision"],
            "longbench_cite_f1": vals["f1"]}


def dataset_table(info: dict[str, Any]) -> str:
    """The dataset rows of a result's ``info`` as a fixed-width table (n/a without records)."""
    rows = dataset_rows(info["dataset_sums"])
    w = max([len("dataset")] + [len(n) for n in rows])
    lines = [f"{'dataset':<{w}}  {'records':>7}  {'recall':>8}  {'precision':>9}  {'f1':>8}"]
    for name, r in rows.items():
        vals = ["n/a" if r[k] is None else f"{r[k]:.2f}" for k in _KEYS]
        lines.append(f"{name:<{w}}  {r['records']:>7}  {vals[0]:>8}  {vals[1]:>9}  {vals[2]:>8}")
    if info.get("unscored_statements"):
        lines.append(unscored_line(info))
    return "\n".join(lines)


def unscored_line(info: dict[str, Any], show: int = 10) -> str:
    """The unscored statements of a result's ``info``: their count and the first ``show``."""
    named = info.get("unscored") or []
    listed = ", ".join(f"{u['id']}#{u['statement']}" for u in named[:show])
    more = f" and {len(named) - show} more" if len(named) > show else ""
    left = info.get("unscored_records") or 0
    out = (f"unscored statements (no readable LLM verdict, left out of the scores): "
           f"{info['unscored_statements']} (record#statement: {listed}{more})")
    return out + (f"; {left} record(s) with none scored left out of the averages" if left else "")


def judge_cache(cache: bool | str) -> str | None:
    """The LLM judge's answer cache file: ``True`` the default (:func:`judge_cache_path`), a
    path, or ``False`` for none."""
    if cache is False:
        return None
    return str(judge_cache_path() if cache is True else Path(cache).expanduser())


def _make_judge(engine: NLIEngine | None, judge: str, **kw: Any) -> LLMJudge | NLIJudge:
    """The NLI judge on ``engine``, or an LLM judge ``llm:MODEL`` answered through its cache."""
    if judge == "nli":
        return NLIJudge(engine, kw["partial_threshold"], kw["need_citation"])  # type: ignore[arg-type]
    client = ChatClient(judge[4:], base_url=kw["base_url"], api_key_env=kw["api_key_env"],
                        concurrency=kw["concurrency"])
    return LLMJudge(CachedChat(client, judge_cache(kw["cache"])), load_templates(kw["prompts"]),
                    kw["concurrency"], kw["strict"])


def _planned(records: Sequence[Record], max_statements: int | None
             ) -> list[tuple[Record, list[dict[str, Any]], list[Ask], int]]:
    """Per record: the record, its statement rows, its judgements and its statement count."""
    return [(rec, *_asks(rec, max_statements)) for rec in records]


def judge_plan(records: Sequence[Record], options: dict[str, Any] | None = None
               ) -> RequestPlan | None:
    """What ``longbench_cite(records, **options)`` would send to its LLM judge, sending nothing
    (:meth:`LLMJudge.plan`); ``None`` for the NLI judge."""
    import inspect

    given = dict(options or {})
    kw = {n: p.default for n, p in inspect.signature(longbench_cite).parameters.items()
          if p.kind is inspect.Parameter.KEYWORD_ONLY}
    kw.update(given)
    jdg = _make_judge(None, **kw)
    if not isinstance(jdg, LLMJudge):
        return None
    asks = [a for _, _, mine, _ in _planned(records, kw["max_statements"]) for a in mine]
    return jdg.plan(asks)


def _unscored_info(per_record: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The statements left unscored (no readable LLM verdict), named by record id and statement
    index, their count, and the count of records left out of the averages for it."""
    named = [{"id": e["id"], "statement": i} for e in per_record for i in e["unscored"]]
    return {"unscored_statements": len(named), "unscored": named,
            "unscored_records": sum(e["citation_recall"] is None for e in per_record)}


@checked(judge=_judge_rule, max_statements=at_least(1, none_ok=True), concurrency=at_least(1),
         partial_threshold=between(0, 1), need_citation=one_of("new_content", "always", "never"))
def longbench_cite(
    records: Sequence[Record],
    engine: NLIEngine,
    *,
    judge: str = "nli",
    base_url: str | None = None,
    api_key_env: str = "OPENAI_API_KEY",
    concurrency: int = 4,
    prompts: str | list[str] | None = None,
    cache: bool | str = True,
    strict: bool = False,
    max_statements: int | None = MAX_STATEMENTS,
    datasets: tuple[str, ...] = DATASETS,
    partial_threshold: float = 0.5,
    need_citation: NeedRule = "new_content",
) -> MetricResult:
    """LongBench-Cite citation recall, precision and F1 (see the module docstring).

    Parameters
    ----------
    records : LongBench-Cite predictions (``longcite`` format), or any records with ``[k]`` marks.
    engine : the NLI engine (the judge when ``judge="nli"``).
    judge : ``"nli"`` (the engine) or ``"llm:MODEL"`` (a chat model; LongBench-Cite used GPT-4o).
    base_url, api_key_env, concurrency : the LLM judge's endpoint (default ``$OPENAI_BASE_URL`` or
        OpenAI's), the variable holding its key, and requests in flight at once.
    prompts : the LLM judge's templates: a folder with ``support.txt``, ``relevance.txt``,
        ``need_citation.txt``, or three files in that order; each holds ``{}`` for the inputs.
    cache : the LLM judge's answer cache: ``True`` (``judge.sqlite`` beside ``$CITETRAIN_CACHE``,
        else in ``~/.cache/citetrain``), a file, or ``False`` (none). Each answer is stored as it
        arrives: a rerun, or a run resumed after a kill, sends no request twice.
    strict : a verdict still unreadable after its tries raises, instead of leaving its statement
        unscored.
    max_statements : statements judged per record, the first ones (``None``: all).
    datasets : the dataset rows (a record counts in each row whose name its ``dataset`` contains).
    partial_threshold : a two-way NLI backend's ``prob`` from which support is partial.
    need_citation : the NLI judge's need-citation rule: ``"new_content"``, ``"always"``, ``"never"``.

    Returns
    -------
    MetricResult named ``"longbench_cite"``: ``longbench_cite_rec`` / ``_prec`` / ``_f1``
    (percentages, the authors' average); ``info["dataset_sums"]``: per dataset [records, Σ recall,
    Σ precision, Σ F1] (:func:`dataset_rows` makes the rows); per record its recall, precision
    and F1 (0–1) and its ``unscored`` statement indices; per statement its support or need,
    relevances and LLM answers.

    A statement whose LLM verdict (support, need_citation or one of its relevances) is still
    unreadable after :data:`~citetrain.metrics.longbench_judges.TRIES` tries is *unscored*
    (``unscored: true``, no recall, its citations out of precision): its record's recall,
    precision and F1 are computed over the scored statements only, and a record with no scored
    statement is left out of the averages (its scores ``None``). ``info["unscored"]`` names each
    (record id, statement index); ``info["unscored_statements"]`` and ``["unscored_records"]``
    count them; the table prints them below the dataset rows.
    """
    jdg = _make_judge(engine, judge, base_url=base_url, api_key_env=api_key_env,
                      concurrency=concurrency, prompts=prompts, cache=cache, strict=strict,
                      partial_threshold=partial_threshold, need_citation=need_citation)
    planned = _planned(records, max_statements)
    asks = [a for _, _, mine, _ in planned for a in mine]
    verdicts = jdg.judge(asks) if asks else []
    per_record, rows, start = [], [], 0
    for rec, srows, mine, total in planned:
        entry = _score_record(rec.id, srows, verdicts[start:start + len(mine)])
        start += len(mine)
        dataset = (rec.model_extra or {}).get("dataset")
        entry.update(dataset=dataset, n_statements_total=total)
        per_record.append(entry)
        rows.extend(srows)
    return _result(jdg, asks, per_record, rows, datasets, judge == "nli", max_statements,
                   partial_threshold=partial_threshold, need_citation=need_citation)


def _result(jdg: LLMJudge | NLIJudge, asks: list[Ask], per_record: list[dict[str, Any]],
            rows: list[dict[str, Any]], datasets: Sequence[str], nli: bool,
            max_statements: int | None, **nli_settings: Any) -> MetricResult:
    """The metric's result from its scored records and statements."""
    sums, all_sums = dataset_sums(per_record, datasets), _sums(per_record)
    settings: dict[str, Any] = {"name": jdg.name, "max_statements": max_statements}
    counts: dict[str, Any] = {}
    if nli:
        settings.update(nli_settings)
    else:
        cache = jdg.chat.cache  # type: ignore[union-attr]
        settings.update(strict=jdg.strict, cache=None if cache is None else str(cache.path))  # type: ignore[union-attr]
        stats = jdg.chat.stats  # type: ignore[union-attr]
        counts = {"requests": stats.requests, "cache_hits": stats.cache_hits}
    info = {"judge": settings, "records": len(per_record), "statements": len(rows),
            "judgements": len(asks), **counts, **_unscored_info(per_record),
            "truncated_records": sum(e["n_statements_total"] > e["n_statements"]
                                     for e in per_record),
            "dataset_sums": sums, "record_sums": all_sums}
    return MetricResult("longbench_cite", average(sums, all_sums), per_record, rows, info)


__all__ = ["DATASETS", "MAX_STATEMENTS", "NOT_AVERAGED", "average", "dataset_rows",
           "dataset_sums", "dataset_table", "judge_cache", "judge_plan", "longbench_cite",
           "plain_response", "record_statements", "unscored_line"]
