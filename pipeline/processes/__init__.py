"""How this process and the processes it starts end: signals (one line per stop; blocks that unwind or wait) and
pools whose workers end with the run.  Neutral ground: it imports nothing of the package, so both the checker
(pipeline/proofs) and the prover's side (runtime, assistant, the command line) use it."""
