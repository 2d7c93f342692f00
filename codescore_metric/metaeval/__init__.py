"""Meta-evaluation: how well a metric agrees with execution ground truth (paper §4.1.3, Tables 3-6).

``correlation`` holds the pure statistics, ``runner`` reads labelled data and computes every
metric with timing, ``rendering`` writes the markdown tables, the JSON file and the scatter plot.
Nothing heavy is imported here.
"""
