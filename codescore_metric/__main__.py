import sys

from codescore_metric.cli import main

sys.exit(main())
