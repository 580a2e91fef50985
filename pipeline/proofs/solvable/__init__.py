"""The checker's own decision of 'can this set be solved within j guesses'."""
