import sys

from statpriv.cli import main

sys.exit(main())
