"""The funnel's tasks: openers dealt round-robin into batches, and their results put back in opener order."""

import numpy as np

from pipeline.stages.lower_bound import batches, level_values
from pipeline.config.stages import LowerBoundConfig


def test_batches_deal_every_opener_once_and_results_come_back_in_order():
    rng = np.random.default_rng(2)
    for n, per_level, most in ((1, 16, 2000), (138, 16, 2000), (2286, 16, 100), (7, 16, 3), (40, 3, 2000)):
        openers = np.sort(rng.choice(13000, n, replace=False)).astype(np.int32)
        jobs = batches(openers, LowerBoundConfig(batches_per_level=per_level, max_batch=most), cluster_cpus=2)
        assert sorted(np.concatenate(jobs).tolist()) == openers.tolist()
        assert max(len(j) for j in jobs) <= most and len(jobs) <= max(per_level, -(-n // most))
        assert max(len(j) for j in jobs) - min(len(j) for j in jobs) <= 1
        parts = [(job.astype(np.int64) * 3 + 1, job % 2 == 0) for job in jobs]  # what a task returns per opener
        values, exact = level_values(parts, jobs, openers)
        assert (values == openers * 3 + 1).all() and (exact == (openers % 2 == 0)).all()
