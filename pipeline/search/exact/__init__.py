"""Exact MinTotal: the depth-first search with bounds, its numba kernels and node steps, and its symmetric top."""
