"""Test helpers shared by several test files (written once, here):

- brute.py: brute force from the definitions over code matrices (prover and checker alike);
- words.py: tiny word-list games and MinTotal by brute force with the scalar answering function;
- fixed_guesses.py: the blindfold stage's questions by brute force, and their games;
- cli.py: the command line in a child process;
- proof_folders.py: copies of proof folders, the committed proofs unpacked into a store, and the checker's command;
- chromium.py: headless Chromium, run once or driven over the DevTools protocol;
- budgets.py: what a bound asked for under a budget may answer.

Shared fixtures live in tests/conftest.py.
"""
