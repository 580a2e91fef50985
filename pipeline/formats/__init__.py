"""Data formats both the prover and the checker read, as data only (no computation of either side)."""
