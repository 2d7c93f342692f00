"""Execution-labelled training and evaluation data: mutation operators, candidate programs, the builder."""
