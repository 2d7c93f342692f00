"""``python -m codescore_metric.codebleu_worker``: CodeBLEU in an interpreter with fixed string hashing.

Started by ``baselines.codebleu_items`` with ``PYTHONHASHSEED=0``; reads ``{"items", "lang",
"weights"}`` as JSON on stdin and writes the list of score dicts as JSON on stdout.
"""

import json
import sys

from codescore_metric.baselines import codebleu_items


def main() -> int:
    if sys.flags.hash_randomization:
        print("codebleu_worker must run with PYTHONHASHSEED=0", file=sys.stderr)
        return 2
    request = json.load(sys.stdin)
    json.dump(codebleu_items(request["items"], request["lang"], tuple(request["weights"])), sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
