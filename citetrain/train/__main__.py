"""``python -m citetrain.train RECIPE``: see :mod:`citetrain.train.run`."""
import sys

from citetrain.train.run import main

if __name__ == "__main__":
    sys.exit(main())
