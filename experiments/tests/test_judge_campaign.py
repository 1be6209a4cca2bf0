"""experiments/judge_campaign.py (issue 14): the runs of the judge table and the ablation, their
command lines, and the scheduler (stage 2 after its stage 1, a failed stage 1 skips its stage 2,
finished runs skipped on a rerun, figures collected as runs end)."""
import json
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "experiments"))

import judge_campaign as jc  # noqa: E402


def test_jobs_cover_rows_seeds_and_ablation_groups():
    todo = jc.jobs(["human", "built", "2stage", "ablation"], [42, 1], [42])
    names = [j["name"] for j in todo]
    assert names[:6] == ["human-s42", "human-s1", "built-s42", "built-s1", "2stage-s42",
                         "2stage-s1"]
    by = {j["name"]: j for j in todo}
    assert by["2stage-s1"]["after"] == "built-s1" and by["human-s1"]["after"] is None
    for g, names_ in jc.GROUPS.items():
        assert by[f"2stage-no{g}-s42"]["after"] == f"built-no{g}-s42"
        assert by[f"built-no{g}-s42"]["sets"] == [f"crossencoder.built_exclude=[{','.join(names_)}]"]
    # every transformation the builder makes is in exactly one group
    from citetrain.builders.transforms import TRANSFORMS

    grouped = [t for ts in jc.GROUPS.values() for t in ts]
    assert sorted(grouped) == sorted(set(grouped)) and set(grouped) <= set(TRANSFORMS)
    assert set(TRANSFORMS) - set(grouped) <= {"copy"}


def test_commands_start_stage_two_from_stage_one_and_built_only_where_asked(tmp_path):
    todo = {j["name"]: j for j in jc.jobs(["human", "built", "2stage", "mixed"], [7], [])}
    line = " ".join(jc.command(todo["2stage-s7"], tmp_path, "BASE", ["train.use_cpu=false"]))
    assert f"model.name_or_path={tmp_path / 'built-s7' / 'final'}" in line
    assert "crossencoder.built=" not in line and "BASE" not in line and "train.seed=7" in line
    assert line.endswith("--set train.use_cpu=false")
    human = " ".join(jc.command(todo["human-s7"], tmp_path, "BASE", []))
    assert "model.name_or_path=BASE" in human and "crossencoder.built=" not in human
    mixed = " ".join(jc.command(todo["mixed-s7"], tmp_path, None, []))
    assert f"crossencoder.built=[{tmp_path / 'mixed-s7' / 'pairs'}]" in mixed
    assert "crossencoder.built_max=6000" in mixed and "model.name_or_path" not in mixed


def fake_pairs(tmp_path: Path) -> tuple[Path, Path]:
    human = tmp_path / "h" / "dataset"
    human.mkdir(parents=True)
    (human / "dataset_dict.json").write_text("{}")
    built = tmp_path / "b"
    (built / "dataset").mkdir(parents=True)
    (built / "manifest.json").write_text("{}")
    return human, built


def test_scheduler_orders_skips_and_collects(tmp_path, monkeypatch):
    human, built = fake_pairs(tmp_path)
    out, dest = tmp_path / "runs", tmp_path / "collected"
    started = []

    def fake_command(job, out_, base, sets):
        started.append(job["name"])
        run = out_ / job["name"]
        if job["name"] == "built-s1":  # this stage 1 fails
            return [sys.executable, "-c", "import sys; sys.exit(3)"]
        if job["after"]:  # stage 2 runs only once its stage 1 is there
            assert (out_ / job["after"] / "train_summary.json").is_file()
        return [sys.executable, "-c", f"import json; open({str(run / 'train_summary.json')!r}, 'w')"
                f".write(json.dumps({{'name': {job['name']!r}}}))"]

    monkeypatch.setattr(jc, "command", fake_command)
    todo = jc.jobs(["human", "built", "2stage"], [42, 1], [])
    failed = jc.run_all(todo, out, None, [], 3, 1, human, built, dest)
    assert sorted(failed) == ["2stage-s1", "built-s1"]
    assert "2stage-s1" not in started  # skipped, never started
    assert json.loads((dest / "2stage-s42" / "train_summary.json").read_text()) == {
        "name": "2stage-s42"}
    assert (out / "built-s42" / "pairs" / "manifest.json").is_file()
    assert not (out / "human-s42" / "pairs").exists() and (out / "human-s42" / "human").is_dir()
    # a rerun starts only what did not finish
    started.clear()
    jc.run_all(todo, out, None, [], 3, 1, human, built, dest)
    assert sorted(started) == ["built-s1"]


def test_a_stage_two_without_its_stage_one_is_refused(tmp_path):
    human, built = fake_pairs(tmp_path)
    with pytest.raises(SystemExit, match="starts from built-s1"):
        jc.run_all(jc.jobs(["2stage"], [1], []), tmp_path / "runs", None, [], 1, 1, human, built)


def test_variants_are_stage_two_rows_from_the_same_stage_one(tmp_path):
    todo = jc.jobs(["built"], [42, 1], [], {"slow": ["train.learning_rate=3e-5", "train.epochs=5"]})
    by = {j["name"]: j for j in todo}
    assert set(by) == {"built-s42", "built-s1", "2stage-slow-s42", "2stage-slow-s1"}
    line = " ".join(jc.command(by["2stage-slow-s1"], tmp_path, "BASE", []))
    assert f"model.name_or_path={tmp_path / 'built-s1' / 'final'}" in line
    assert line.endswith("--set train.learning_rate=3e-5 --set train.epochs=5")
