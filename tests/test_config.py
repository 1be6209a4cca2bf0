"""Config validation: every error at once, with suggestions for unknown keys."""
import pytest
from pydantic import BaseModel, ConfigDict

from citetrain.config import ConfigError, apply_overrides, load_config
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
