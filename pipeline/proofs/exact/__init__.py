"""The checker's own exact MinTotal for small candidate sets."""
