"""Meta-evaluation: how well a metric agrees with execution ground truth (paper §4.1.3, Tables 3-6).

``runner`` computes every metric with timing on rows read by ``codescore_metric.labelled`` and
measures agreement with the statistics of ``codescore_metric.correlation``; ``rendering`` writes the
markdown tables, the JSON file and the scatter plot. Nothing heavy is imported here.
"""
