"""The checks of each certificate kind (optimal, infeasible, leaderboard, tree), their schema and record."""
