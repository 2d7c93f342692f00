"""benchmarks/cpu_dtypes.py: interleaved rounds compare each dtype with the fp32 run of the same round."""

from tests.scripts import load_script

script = load_script("benchmarks/cpu_dtypes.py")


def run(rate, rss=800.0):
    return {"samples_per_s": rate, "peak_rss_mb": rss, "rss_growth_mb": rss - 200, "codescore": [0.5], "load_s": 1.0}


def test_rounds_give_per_round_ratios_and_median_rates():
    # the host's speed changes between rounds: each ratio is against its own round's fp32 (median 2.0x),
    # where the ratio of the median rates would be 15 / 10 = 1.5x
    rounds = [{"fp32": run(10.0), "int8": run(15.0, rss=900.0)},
              {"fp32": run(6.0), "int8": run(12.0)},
              {"fp32": run(12.0), "int8": run(24.0)}]
    runs = script.combine_rounds(rounds)
    assert runs["int8"]["speedups"] == [1.5, 2.0, 2.0]
    assert runs["int8"]["samples_per_s"] == 15.0 and runs["fp32"]["samples_per_s"] == 10.0
    assert runs["int8"]["peak_rss_mb"] == 900.0  # the largest over the rounds
    assert script.format_speedup(runs["int8"]["speedups"]) == "2.00x (1.50-2.00)"


def test_one_round_and_no_fp32():
    assert script.format_speedup([1.5]) == "1.50x"
    assert script.format_speedup(None) == "n/a"
    runs = script.combine_rounds([{"int8": run(20.0)}])
    assert "speedups" not in runs["int8"]
