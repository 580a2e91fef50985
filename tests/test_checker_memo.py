"""The checker's bounded memo (pipeline/proofs/bounds/memo.py): it never holds more than its limit, and emptying
it forgets, never mixes, what it kept.  (That bounds are unchanged by it: tests/test_checker_brute.py.)"""

from pipeline.proofs.bounds.memo import BoundedMemo


def test_a_full_memo_is_emptied_before_a_new_key_and_kept_for_a_known_one():
    memo = BoundedMemo(3)
    for key in "abc":
        memo[key] = key.upper()
    memo["b"] = "B2"  # a known key: nothing is forgotten
    assert dict(memo) == {"a": "A", "b": "B2", "c": "C"}
    memo["d"] = "D"  # a fourth key: the three go first
    assert dict(memo) == {"d": "D"}
    for key in "efgh":
        memo[key] = key
    assert len(memo) <= 3 and memo["h"] == "h"


def test_a_memo_of_any_limit_never_holds_more():
    for limit in (1, 2, 5):
        memo = BoundedMemo(limit)
        sizes = []
        for key in range(20):
            memo[key] = key
            sizes.append(len(memo))
            assert memo[key] == key
        assert max(sizes) == limit
