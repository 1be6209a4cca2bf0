"""Build hook: the wheel carries the repository's top-level recipes/, data_builders/, eval/,
launch/ and examples/ as citetrain/_shipped/<folder>/ (citetrain.io.assets finds them there when
citetrain is installed; in a clone it reads the top-level folders themselves). Everything else is
in pyproject.toml."""
import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

FOLDERS = ("recipes", "data_builders", "eval", "launch", "examples")
SUFFIXES = (".yaml", ".sbatch", ".jsonl")


class BuildPyWithShipped(build_py):
    """``build_py``, then the shipped folders copied into the built package."""

    def run(self):
        super().run()
        root = Path(__file__).resolve().parent
        target = Path(self.build_lib) / "citetrain" / "_shipped"
        for folder in FOLDERS:
            for src in sorted((root / folder).glob("*")):
                if src.is_file() and src.suffix in SUFFIXES:
                    dest = target / folder / src.name
                    dest.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copyfile(src, dest)


setup(cmdclass={"build_py": BuildPyWithShipped})
