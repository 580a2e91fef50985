"""Heuristic strategies: valuations, greedy and breadth-first trees, simple strategies and objectives."""
