"""Config validation: every error at once, with suggestions for unknown keys; the relative paths
of every YAML file read one way."""
import pytest
import yaml
from pydantic import BaseModel, ConfigDict

from citetrain.config import ConfigError, apply_overrides, load_config, yaml_entry, yaml_path
from citetrain.errors import CitetrainError


class Inner(BaseModel):
    model_config = ConfigDict(extra="forbid")
    rank: int = 8


class Outer(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str
    lora: Inner = Inner()


def write(tmp_path, text):
    p = tmp_path / "c.yaml"
    p.write_text(text)
    return p


def test_all_errors_reported_together_with_did_you_mean(tmp_path):
    p = write(tmp_path, "nmae: x\nlora:\n  rnak: 4\n")
    with pytest.raises(ConfigError) as e:
        load_config(Outer, p)
    msg = str(e.value)
    assert "3 errors" in msg
    assert "nmae: unknown key; did you mean 'name'?" in msg
    assert "lora.rnak: unknown key; did you mean 'rank'?" in msg
    assert "name: Field required" in msg


def test_overrides(tmp_path):
    p = write(tmp_path, "name: x\n")
    cfg = load_config(Outer, p, ["lora.rank=16", "name=y"])
    assert cfg.lora.rank == 16 and cfg.name == "y"
    with pytest.raises(CitetrainError, match="expected section.key=value"):
        apply_overrides({}, ["novalue"])


def test_bad_yaml_and_missing_file(tmp_path):
    with pytest.raises(CitetrainError, match=r"c.yaml:2: invalid YAML"):
        load_config(Outer, write(tmp_path, "name: x\n  bad: [\n"))
    with pytest.raises(CitetrainError, match="no such file"):
        load_config(Outer, tmp_path / "nope.yaml")


@pytest.fixture
def places(tmp_path, monkeypatch):
    """``root/cfg/`` holds the YAML files, ``work/`` is the working directory; a file beside the
    YAML files, one in the working directory, one in ``root/``, one in both ``cfg/`` and
    ``work/``."""
    cfg, work = tmp_path / "root" / "cfg", tmp_path / "work"
    cfg.mkdir(parents=True)
    work.mkdir()
    for where, name in ((cfg, "beside.jsonl"), (work, "here.jsonl"), (cfg.parent, "top.jsonl"),
                        (cfg, "both.jsonl"), (work, "both.jsonl")):
        (where / name).write_text("{}\n")
    monkeypatch.chdir(work)
    return cfg


def test_a_relative_path_is_read_from_here_then_the_yaml_folder_then_its_parent(places):
    cfg = places
    f = cfg / "c.yaml"
    assert yaml_path("beside.jsonl", f) == str(cfg / "beside.jsonl")
    assert yaml_path("here.jsonl", f) == "here.jsonl"  # from the working directory: as written
    assert yaml_path("top.jsonl", f) == str(cfg.parent / "top.jsonl")
    assert yaml_path("../top.jsonl", f) == str(cfg.parent / "top.jsonl")
    assert yaml_path("both.jsonl", f) == "both.jsonl"  # the working directory first
    assert yaml_path("nowhere.jsonl", f) == str(cfg / "nowhere.jsonl")
    assert yaml_path("nowhere.jsonl", f, "written") == "nowhere.jsonl"
    assert yaml_path("zero3", f, "written") == "zero3"  # a shipped name stays a name
    assert yaml_path(str(places / "x" / ".." / "abs"), f) == str(places / "x" / ".." / "abs")
    # a YAML file in the working directory: its paths stay as written (a run's recorded
    # settings, and so its resume, are what they were)
    assert yaml_path("here.jsonl", "c.yaml") == "here.jsonl"
    # FORMAT:PATH entries: a labelled-source format is kept, anything else is part of the path
    assert yaml_entry("wice_oracle:beside.jsonl", f) == f"wice_oracle:{cfg / 'beside.jsonl'}"
    assert yaml_entry("wice_oracle:here.jsonl", f, "written") == "wice_oracle:here.jsonl"
    assert yaml_entry("beside.jsonl", f) == str(cfg / "beside.jsonl")
    assert yaml_entry("nope:x", f, "written") == "nope:x"
    assert yaml_entry("nope:x", f) == str(cfg / "nope:x")


def _yaml_files(cfg, rel: str) -> dict:
    """A recipe, a build spec, an eval suite and a distill spec under ``cfg`` that each name
    ``rel``, and the loader that reads the path back."""
    from citetrain.builders.spec import load_spec as load_build
    from citetrain.distill.spec import load_spec as load_distill
    from citetrain.metrics.suites import load_suite
    from citetrain.train.recipe import load_recipe

    files = {
        "recipe": ({"name": "r", "kind": "refiner", "model": {"tiny": {}}, "data": {"dataset": rel},
                    "train": {"output_dir": "o"}}, load_recipe, lambda x: x.data.dataset),
        "build spec": ({"name": "b", "kind": "refiner", "sources": [{"path": rel}], "out": "o"},
                       load_build, lambda x: x.sources[0].path),
        "suite": ({"name": "s", "data": [{"path": rel}]}, load_suite, lambda x: x.data[0].path),
        "distill spec": ({"name": "d", "out": "o", "pairs": {"folder": rel},
                          "teacher": {"folds": {}}}, load_distill, lambda x: x.pairs.folder),
    }
    out = {}
    for kind, (data, load, read) in files.items():
        path = cfg / f"{kind.replace(' ', '-')}.yaml"
        path.write_text(yaml.safe_dump(data))
        out[kind] = read(load(path))
    return out


@pytest.mark.parametrize("rel", ["beside.jsonl", "here.jsonl", "top.jsonl", "../top.jsonl",
                                 "both.jsonl"])
def test_every_kind_of_yaml_file_reads_a_relative_path_the_same_way(places, rel):
    got = _yaml_files(places, rel)
    assert set(got.values()) == {yaml_path(rel, places / "any.yaml")}, got


def test_a_path_found_nowhere_is_from_the_folder_or_as_written_by_kind(places):
    got = _yaml_files(places, "nowhere/x.jsonl")
    beside = str(places / "nowhere" / "x.jsonl")  # suites and build specs: files beside them
    assert got == {"recipe": "nowhere/x.jsonl", "build spec": beside, "suite": beside,
                   "distill spec": "nowhere/x.jsonl"}  # recipes, distill specs: as written
