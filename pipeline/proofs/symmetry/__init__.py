"""The checker's view of symmetries: verified generators, orbits, stabilisers."""
