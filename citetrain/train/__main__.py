"""``python -m citetrain.train RECIPE``: one training run (the parser is
:mod:`citetrain.cli.recipe_run`, with every other parser)."""
import sys

from citetrain.cli.recipe_run import main

if __name__ == "__main__":
    sys.exit(main())
