"""What the stages write and how to find it again: tree files, and the artifacts in a store that fit a game."""
