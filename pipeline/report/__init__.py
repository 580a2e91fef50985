"""The report's ingredients: the published figures it compares against, and its plots."""
