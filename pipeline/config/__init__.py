"""Settings: the typed config schemas (game, Ray, paths, every stage) and their shared checks."""
