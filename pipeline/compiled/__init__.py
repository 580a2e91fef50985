"""Compiled code: where numba keeps its machine code, named by the digest of the kernel sources."""
