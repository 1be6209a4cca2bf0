"""Steps of the chain on their own: the built pairs from a build spec (a finished build of the
same settings is kept), and a failed training run reported in one line with its log."""
from __future__ import annotations

import pytest
import yaml

from citetrain.distill.plan import finished_build
from citetrain.distill.pipeline import plan
from citetrain.distill.runs import TrainRun, run_all, slots
from citetrain.distill.spec import load_spec
from citetrain.errors import CitetrainError
from tests.builders.pairs_corpus import write_text
from tests.distill.conftest import write_spec


def test_the_pairs_step_builds_once_and_keeps_a_finished_build(toy, tmp_path):
    build = {"name": "t", "kind": "pairs", "shard_size": 4, "split": {"validation": 0.3},
             "sources": [{"path": str(write_text(tmp_path / "corpus.txt")), "format": "text"}],
             "pairs": {"per_passage": 4}, "out": str(tmp_path / "built")}
    (tmp_path / "pairs.yaml").write_text(yaml.safe_dump(build))
    spec = write_spec(tmp_path, toy, pairs={"spec": str(tmp_path / "pairs.yaml")})
    ctx, steps = plan(load_spec(spec))
    assert [s.name for s in steps[:2]] == ["pairs", "human"] and ctx.built == tmp_path / "built"
    assert not finished_build(ctx.build_spec, ctx.built)
    assert steps[0].call().startswith("pairs: train ")
    assert finished_build(ctx.build_spec, ctx.built)
    assert steps[0].call().startswith("kept the finished build at ")
    other, _ = plan(load_spec(spec, ["pairs.set=[pairs.per_passage=5]"]))
    assert not finished_build(other.build_spec, other.built)  # other settings: built again


def test_a_failed_run_stops_new_starts_and_names_its_log(tmp_path):
    said: list[str] = []
    runs = [TrainRun(name, str(tmp_path / "nowhere.yaml"), [], tmp_path / f"{name}.log")
            for name in ("teacher-a", "teacher-b")]
    with pytest.raises(CitetrainError) as e:
        run_all(runs, slots(1, 2, gpu=False), said.append)
    assert str(e.value).startswith("teacher-a failed (exit 2: ") and "nowhere.yaml" in str(e.value)
    assert str(e.value).endswith(f"its log: {tmp_path / 'teacher-a.log'}")
    assert "\n" not in str(e.value) and not (tmp_path / "teacher-b.log").exists()
    assert said[0].startswith("teacher-a: started (1 of 2") and "FAILED" in said[1]


def test_a_step_is_kept_resumed_or_cleaned_by_its_record(tmp_path):
    from citetrain.distill.chain import Chain, Step

    calls: list[str] = []

    def steps(size: int, fail: bool = False) -> list[Step]:
        def write(name: str, text: str):
            def call() -> str:
                calls.append(name)
                (tmp_path / f"{name}.txt").write_text(text)
                if fail and name == "b":
                    raise KeyboardInterrupt  # killed after writing, before its record
                return f"wrote {name}"
            return call
        return [Step("a", "first", "(a)", [tmp_path / "a.txt"], {"size": size},
                     call=write("a", "x" * size), clean=[tmp_path / "a.txt", tmp_path / "a.part"]),
                Step("b", "second", "(b)", [tmp_path / "b.txt"], {}, after=["a"],
                     call=write("b", "y"))]

    said: list[str] = []
    with pytest.raises(KeyboardInterrupt):
        Chain(steps(1, fail=True), tmp_path, "r.yaml", said.append).run(lambda n: [])
    chain = Chain(steps(1), tmp_path, "r.yaml", said.append)
    assert [chain.state(s) for s in chain.steps] == ["kept", "todo"]  # b started, not done
    assert chain.run(lambda n: []) == {"a": "kept", "b": "run"}
    assert Chain(steps(1), tmp_path, "r.yaml", said.append).run(lambda n: []) == {
        "a": "kept", "b": "kept"}
    (tmp_path / "a.part").write_text("stale")
    changed = Chain(steps(2), tmp_path, "r.yaml", said.append)
    assert [changed.state(s) for s in changed.steps] == ["changed", "changed"]  # b reads a
    assert changed.run(lambda n: []) == {"a": "run", "b": "run"}
    assert not (tmp_path / "a.part").exists() and (tmp_path / "a.txt").read_text() == "xx"
    assert calls == ["a", "b", "b", "a", "b"]
    assert "a: its settings changed since an earlier call; run again from scratch" in said
