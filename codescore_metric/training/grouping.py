"""Which candidates of one task share a group in a task-grouped batch (light: the CLI reads the choices without torch)."""

from __future__ import annotations

import random
from collections.abc import Sequence

# random: shuffled and cut; spread: every group takes one candidate from each PassRatio stratum of the task
GROUP_MIXES = ("random", "spread")


def cut_groups(members: list[int], group_size: int) -> list[list[int]]:
    """``members`` cut into groups of ``group_size`` in order; a lone last member joins the group before it."""
    groups = [members[start:start + group_size] for start in range(0, len(members), group_size)]
    if len(groups) > 1 and len(groups[-1]) == 1:
        lone = groups.pop()
        groups[-1] += lone
    return groups


def spread_groups(members: list[int], group_size: int, pass_ratio: Sequence[float], rng: random.Random) -> list[list[int]]:
    """``ceil(n / group_size)`` groups of one task's members that each span the task's PassRatios: the members
    sorted by ``pass_ratio[member]`` (ties keep their given order) are cut into strata of one member per group,
    each stratum is shuffled, and group k takes the k-th member of every stratum."""
    count = -(-len(members) // group_size)
    ordered = sorted(members, key=lambda member: pass_ratio[member])
    strata = [ordered[start:start + count] for start in range(0, len(ordered), count)]
    for stratum in strata:
        rng.shuffle(stratum)
    return [[stratum[k] for stratum in strata if k < len(stratum)] for k in range(count)]
