"""Teachers that are not trained here (:mod:`citetrain.judge_training.teachers`): an NLI engine or
an LLM judge reads the human training pairs and the built pairs into a teacher file, resumably;
and the run slots the fold teachers get (:mod:`citetrain.distill.runs`)."""
from __future__ import annotations

import json

import pytest

from citetrain.distill.pipeline import plan
from citetrain.distill.runs import describe, slots
from citetrain.distill.spec import load_spec
from citetrain.judge_training.teacher_scores import pair_key, read_teacher_rows
from citetrain.judge_training.teachers import teacher_rows, write_engine_teacher
from citetrain.judge_training.transfer import drawn_keys, transfer_pairs
from tests.distill.conftest import write_spec


class Fixed:
    """An engine whose every answer is one support triple; it may fail after some calls."""

    def __init__(self, support=(0.6, 0.3, 0.1), fail_after: int | None = None):
        from types import SimpleNamespace

        self.backend = SimpleNamespace(model_id="fixed", revision="1")
        self.support, self.fail_after, self.read = support, fail_after, 0

    def results(self, pairs):
        from citetrain.nli.base import NLIResult

        if self.fail_after is not None and self.read >= self.fail_after:
            raise KeyboardInterrupt
        self.read += len(pairs)
        return [NLIResult(self.support[0], True, self.support) for _ in pairs]


def _human(toy, tmp_path):
    """The toy recipe's human pairs, made as the chain's first step makes them."""
    ctx, steps = plan(load_spec(write_spec(tmp_path, toy)))
    steps[0].call()
    return ctx.human


def test_an_engine_reads_human_and_built_pairs_and_resumes(toy, tmp_path):
    human = _human(toy, tmp_path)
    only = drawn_keys(toy["built"], 5, [42])
    rows = teacher_rows(human, [toy["built"]], 0.8, only)
    n_human = len({pair_key(*p) for p in transfer_pairs(human)})
    assert sum(w is None for _, _, w in rows) == n_human
    assert {k for k, _, w in rows if w is not None} <= only
    out = tmp_path / "teacher.jsonl"
    with pytest.raises(KeyboardInterrupt):  # killed after two chunks of 16
        write_engine_teacher(out, Fixed(fail_after=32), human, [toy["built"]], 0.8, only,
                             chunk=16, progress=False)
    assert not out.exists()
    again = Fixed()
    info = write_engine_teacher(out, again, human, [toy["built"]], 0.8, only, chunk=16,
                                progress=False)
    assert info == {"human": n_human, "built": len(rows) - n_human, "resumed": 32}
    assert again.read == len(rows) - 32  # only what the killed call had not scored
    got = read_teacher_rows(out)
    assert len(got) == len(rows) and not list(tmp_path.glob("*.partial.jsonl"))
    assert {w for _, w in got.values()} == {None, 0.8}
    assert all(p == pytest.approx([0.1, 0.3, 0.6]) for p, _ in got.values())  # no, partial, full


def test_an_llm_teacher_through_the_chain(toy, tmp_path, server):
    srv = server(answer=lambda p: "Attributable." if "w1 " in p else "Extrapolatory.")
    spec = load_spec(write_spec(tmp_path, toy, teacher={
        "llm": {"model": "judge-1", "base_url": srv.url, "concurrency": 2},
        "transfer_weight": 0.5}))
    ctx, steps = plan(spec)
    assert [s.name for s in steps] == ["human", "teacher-file", "student"]
    for step in steps[:2]:
        step.call()
    rows = [json.loads(x) for x in (ctx.out / "teacher.jsonl").read_text().splitlines()]
    assert {tuple(r["probs"]) for r in rows} == {(0.0, 0.0, 1.0), (1.0, 0.0, 0.0)}
    assert {r.get("weight") for r in rows} == {None, 0.5}
    assert len(srv.prompts) == len(rows) and (ctx.out / "teacher-cache.sqlite").is_file()
    assert "--set distill.teacher=" in steps[2].command


def test_run_slots_share_the_cores_or_the_gpus(monkeypatch):
    import citetrain.distill.runs as runs
    import citetrain.train.threads as threads

    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    monkeypatch.setattr(threads, "cpu_cores", lambda: 4)
    monkeypatch.setattr(runs, "_memory", lambda: 64 << 30)
    assert [e["OMP_NUM_THREADS"] for e in slots("auto", 16, gpu=False)] == ["1"] * 4
    assert [e["OMP_NUM_THREADS"] for e in slots(2, 16, gpu=False)] == ["2", "2"]
    assert len(slots("auto", 3, gpu=False)) == 3 and len(slots(8, 1, gpu=False)) == 1
    monkeypatch.setattr(runs, "_memory", lambda: 4 << 30)  # room for one run
    assert describe(slots("auto", 16, gpu=False)) == "1 at a time, 4 threads each"
    monkeypatch.setenv("OMP_NUM_THREADS", "3")  # the user's setting stays
    assert slots(2, 4, gpu=False)[0]["OMP_NUM_THREADS"] == "3"
    monkeypatch.setattr(runs, "gpu_ids", lambda: ["0", "1"])
    assert [e["CUDA_VISIBLE_DEVICES"] for e in slots("auto", 16, gpu=True)] == ["0", "1"]
    assert [e["CUDA_VISIBLE_DEVICES"] for e in slots(3, 16, gpu=True)] == ["0", "1", "0"]
    assert describe(slots(3, 16, gpu=True)) == "3 at a time on GPU 0, 1"
