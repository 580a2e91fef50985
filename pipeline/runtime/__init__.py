"""The runtime: Ray session, fan-out with progress and retries, artifact store. Knows nothing about games."""
