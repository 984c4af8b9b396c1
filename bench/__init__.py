"""Benchmarks: each prints its figure as a ratio against a peer measured in the same run."""
