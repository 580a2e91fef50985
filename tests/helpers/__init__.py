"""Helpers shared by several test modules (each lives here once)."""
