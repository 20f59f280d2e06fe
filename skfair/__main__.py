"""``python -m skfair``: the command line of :mod:`skfair._cli`."""

import sys

from skfair._cli import main

if __name__ == "__main__":
    sys.exit(main())
