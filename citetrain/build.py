"""``python -m citetrain.build SPEC``: the build as a module, so that
``accelerate launch --num_processes N -m citetrain.build SPEC`` runs it data-parallel."""
from __future__ import annotations

import sys

from citetrain.cli.main import main


def run(argv: list[str] | None = None) -> int:
    """``citetrain build`` with ``argv`` (default: the command line)."""
    args = sys.argv[1:] if argv is None else argv
    flags = [a for a in args if a == "--debug"]
    return main(flags + ["build"] + [a for a in args if a != "--debug"])


if __name__ == "__main__":
    sys.exit(run())
