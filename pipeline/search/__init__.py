"""The mathematics: pure functions over a code matrix (no Ray, Hydra or pyarrow)."""
