"""Test helpers shared by several test files (written once, here)."""
