"""The start-up hook behind ``accelerate launch recipes/X.yaml`` (citetrain/cli/recipe_hook.py):
what it replaces a process by, what it leaves to Python, and that it is installed. The launches
themselves (one process, two over gloo, ZeRO-3) are in tests/train/test_distributed.py; the wheel's
copy of the hook in tests/test_wheel.py."""
from __future__ import annotations

import os
import site
import subprocess
import sys
from pathlib import Path

import pytest

from citetrain.cli.recipe_hook import ENV, PTH_LINE, PTH_NAME, command, is_recipe

REPO = Path(__file__).resolve().parents[2]
NOT_A_RECIPE = "model:\n  name_or_path: mistralai/Mistral-7B-Instruct-v0.2\n"


def _python(args: list[str], cwd: Path, **env: str) -> subprocess.CompletedProcess:
    environ = {**os.environ, **env}
    if ENV not in env:
        environ.pop(ENV, None)
    return subprocess.run([sys.executable, *args], cwd=cwd, env=environ, capture_output=True,
                          text=True, timeout=300)


def test_a_recipe_becomes_python_m_citetrain_train_with_its_flags_and_arguments(monkeypatch):
    monkeypatch.delenv(ENV, raising=False)
    recipe = str(REPO / "recipes" / "refiner.yaml")
    argv = [recipe, "--set", "train.max_steps=3"]
    assert command(argv, ["/py", "-u", "-X", "utf8", *argv], "/py") == [
        "/py", "-u", "-X", "utf8", "-m", "citetrain.train", recipe, "--set", "train.max_steps=3"]
    assert command([recipe], [], "/py") == ["/py", "-m", "citetrain.train", recipe]


@pytest.mark.parametrize("text", [NOT_A_RECIPE, "name: x\nkind: refiner\n", "- a\n- b\n",
                                  "a: [unclosed\n", "name: x\nkind: poem\nmodel: {}\ndata: {}\ntrain: {}\n"])
def test_anything_but_a_recipe_is_left_to_python(tmp_path, text, monkeypatch):
    monkeypatch.delenv(ENV, raising=False)
    path = tmp_path / "other.yaml"
    path.write_text(text)
    assert not is_recipe(path)
    assert command([str(path)], ["/py", str(path)], "/py") is None
    assert command([str(tmp_path / "missing.yml")], [], "/py") is None
    assert command([str(REPO / "citetrain" / "cli" / "recipe_hook.py")], [], "/py") is None


def test_one_environment_variable_switches_it_off(monkeypatch):
    recipe = str(REPO / "recipes" / "tiny-cpu.yaml")
    monkeypatch.setenv(ENV, "0")
    assert command([recipe], [], "/py") is None
    monkeypatch.setenv(ENV, "1")
    assert command([recipe], [], "/py") is not None


def test_python_on_a_recipe_runs_the_recipe(tmp_path):
    done = _python(["-u", str(REPO / "recipes" / "tiny-cpu.yaml"), "--dry-run"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert "tiny-cpu.yaml: ok (refiner, lora, tiny llama, 1 process(es)); dry run" in done.stdout


def test_another_yaml_keeps_pythons_own_error(tmp_path):
    """``python some_other.yaml`` fails as it did before the hook: the same SyntaxError, exit 1,
    with the hook on and off."""
    path = tmp_path / "some_other.yaml"
    path.write_text(NOT_A_RECIPE)
    on = _python([str(path)], tmp_path)
    off = _python([str(path)], tmp_path, **{ENV: "0"})
    assert on.returncode == off.returncode == 1
    assert "SyntaxError: invalid decimal literal" in on.stderr
    assert on.stderr == off.stderr and on.stdout == off.stdout == ""


def test_switched_off_a_recipe_is_python_again(tmp_path):
    done = _python([str(REPO / "recipes" / "refiner.yaml")], tmp_path, **{ENV: "0"})
    assert done.returncode == 1 and "SyntaxError" in done.stderr


def test_the_hook_is_installed_and_imports_nothing_for_other_scripts(tmp_path):
    """The editable install carries the .pth (setup.py); another script starts without any
    citetrain module loaded."""
    found = [Path(d) / PTH_NAME for d in site.getsitepackages() if (Path(d) / PTH_NAME).is_file()]
    assert found, f"{PTH_NAME} is not in {site.getsitepackages()}: pip install -e ."
    assert found[0].read_text() == PTH_LINE
    done = _python(["-c", "import sys; print(sorted(m for m in sys.modules if m.startswith('citetrain')))"],
                   tmp_path)
    assert done.stdout.strip() == "[]", done.stdout
    script = tmp_path / "script.py"
    script.write_text("import sys; print(sorted(m for m in sys.modules if m.startswith('citetrain')))\n")
    assert _python([str(script)], tmp_path).stdout.strip() == "[]"
