"""benchmarks/static_checks.py: the scorer's rules applied to programs run in the sandbox; a rule that scores 0
must meet no program that passes a test."""

import pytest

from codescore_metric.execution import Job, run_many
from codescore_metric.execution.labels import executable, pass_ratio
from tests.scripts import load_script

REFERENCE = "def matches(text):\n    if 'ab' in text:\n        return 'Found a match!'\n    return 'Not matched!'\n"
TESTS = ["assert matches('cab') == 'Found a match!'", "assert matches('ac') == 'Not matched!'",
         "assert matches('') == 'Not matched!'"]
PROGRAMS = {
    "bool instead of the message": "def matches(text):\n    return 'ab' in text\n",
    "the messages as a list": "def matches(text):\n    return ['Found a match!'] if 'ab' in text else ['Not matched!']\n",
    "correct": "def matches(text):\n    return 'Found a match!' if 'ab' in text else 'Not matched!'\n",
    "a wrong message": "def matches(text):\n    return 'Found a match!' if 'a' in text else 'Not matched!'\n",
    "no return": "def matches(text):\n    print('ab' in text)\n",
}


@pytest.fixture(scope="module")
def script():
    return load_script("benchmarks/static_checks.py")


def test_rules_are_counted_against_what_the_sandbox_measures(script):
    results = run_many([Job(program=program, tests=TESTS) for program in PROGRAMS.values()])
    rows = [{"generated_code": program, "golden_code": REFERENCE, "pass_ratio": pass_ratio(result),
             "executable": executable(result)}
            for program, result in zip(PROGRAMS.values(), results)]
    assert [row["pass_ratio"] for row in rows] == pytest.approx([0, 0, 1, 2 / 3, 0])
    counts = script.decided(rows)
    assert set(counts) == {"other_return_kind", "no_return_value"}
    assert counts["other_return_kind"]["rows"] == 2 and counts["other_return_kind"]["passes_a_test"] == 0
    assert counts["other_return_kind"]["runs_every_test"] == 2  # they run; their values never equal a string
    table = script.markdown({"hand": (5, counts)})
    assert "| hand (5) | other_return_kind | 0 (CodeScore, Passability) | 2 | 0 | 2 | 0 |" in table
