"""The guess x secret code matrix: numba kernel and Parquet I/O."""
