import sys

from citetrain.cli.main import main

sys.exit(main())
