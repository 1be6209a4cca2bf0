"""Build hooks: the wheel carries the repository's top-level recipes/, data_builders/, eval/,
launch/, examples/ and distill/ as citetrain/_shipped/<folder>/ (citetrain.io.assets finds them there when
citetrain is installed; in a clone it reads the top-level folders themselves), and the one-line
citetrain-recipe-hook.pth at the top of site-packages (citetrain/cli/recipe_hook.py: `accelerate
launch recipes/X.yaml` trains), in a wheel and in an editable install. Everything else is in
pyproject.toml."""
import importlib.util
import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.command.editable_wheel import editable_wheel

ROOT = Path(__file__).resolve().parent

FOLDERS = ("recipes", "data_builders", "eval", "launch", "examples", "distill")
SUFFIXES = (".yaml", ".sbatch", ".jsonl")


class BuildPyWithShipped(build_py):
    """``build_py``, then the shipped folders copied into the built package."""

    def run(self):
        super().run()
        root = ROOT
        target = Path(self.build_lib) / "citetrain" / "_shipped"
        for folder in FOLDERS:
            for src in sorted((root / folder).glob("*")):
                if src.is_file() and src.suffix in SUFFIXES:
                    dest = target / folder / src.name
                    dest.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copyfile(src, dest)
        name, line = hook_pth()
        (Path(self.build_lib) / name).write_text(line)


def hook_pth() -> tuple[str, str]:
    """(file name, line) of the start-up hook, from citetrain/cli/recipe_hook.py itself."""
    spec = importlib.util.spec_from_file_location("_recipe_hook", ROOT / "citetrain/cli/recipe_hook.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.PTH_NAME, module.PTH_LINE


class _WithHook:
    """An editable install's strategy that also writes the hook's .pth into the wheel."""

    def __init__(self, strategy):
        self.strategy = strategy

    def __call__(self, wheel, files, mapping):
        self.strategy(wheel, files, mapping)
        name, line = hook_pth()
        wheel.writestr(name, line.encode())

    def __enter__(self):
        self.strategy.__enter__()
        return self

    def __exit__(self, *exc):
        return self.strategy.__exit__(*exc)


class EditableWithHook(editable_wheel):
    """``pip install -e``: the editable wheel carries the hook's .pth too (build_py's copy of it
    lands in a build folder that an editable wheel does not install)."""

    def _select_strategy(self, *args, **kwargs):
        return _WithHook(super()._select_strategy(*args, **kwargs))


setup(cmdclass={"build_py": BuildPyWithShipped, "editable_wheel": EditableWithHook})
