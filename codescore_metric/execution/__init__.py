"""Execution ground truth: a sandbox that runs programs against tests, labels, task formats, test extension.

Nothing here imports torch; the untrusted code runs only in the sandbox's child processes.
"""

from codescore_metric.execution.sandbox import Job, Limits, ProgramResult, SandboxError, TestResult, run_many, run_program

__all__ = ["Job", "Limits", "ProgramResult", "SandboxError", "TestResult", "run_many", "run_program"]
