"""A HiGHS model that keeps HiGHS busy: for tests that stop a solve."""

import numpy as np


def hard_set_cover(seconds: float):
    """A random set-cover MIP that HiGHS does not solve within `seconds` (it is stopped long before)."""
    import highspy

    rng = np.random.default_rng(1)
    n, m = 300, 3000
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("time_limit", seconds)
    columns = np.arange(n, dtype=np.int32)
    h.addVars(n, np.zeros(n), np.ones(n))
    h.changeColsCost(n, columns, np.ones(n))
    h.changeColsIntegrality(n, columns, np.ones(n, dtype=np.uint8))
    for _ in range(m):
        members = np.unique(np.concatenate([np.flatnonzero(rng.random(n) < 0.01), rng.integers(0, n, 2)]))
        h.addRow(1.0, highspy.kHighsInf, len(members), members.astype(np.int32), np.ones(len(members)))
    return h
