"""The checker's own lower bounds (normal and hard mode), from their definitions."""
