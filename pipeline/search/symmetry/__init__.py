"""A game's symmetries: their generators and the stabiliser of a history."""
