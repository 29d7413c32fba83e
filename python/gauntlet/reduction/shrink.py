"""Shrinking a list to the items a test needs (the reducer's and the campaigns' minimal sets)."""

from __future__ import annotations

from typing import Callable


def shrink(items: list, test: Callable[[list], bool]) -> list:
    """A sublist of ``items`` (for all of which ``test`` holds) for which it still holds, found one
    needed item at a time: the shortest tail that still passes starts with one (a galloping search
    from the end, since what a finding needs is most often recent), which is kept, and the search
    goes on after it. k needed items of n cost about 2 k log2(n) tests; ddmin costs more when k is
    small, as it is for most findings. Then each kept item is tried without."""
    kept, rest = [], list(items)
    while rest:
        low, k = -1, 0
        while k < len(rest) and not test(kept + rest[len(rest) - k:]):
            low, k = k, max(1, 2 * k)
        if k == 0:
            break  # nothing more of the rest is needed
        k = min(k, len(rest))
        while low + 1 < k:
            mid = (low + k) // 2
            if test(kept + rest[len(rest) - mid:]):
                k = mid
            else:
                low = mid
        kept.append(rest[len(rest) - k])
        rest = rest[len(rest) - k + 1:]
    for item in list(kept):
        without = [x for x in kept if x is not item]
        if test(without):
            kept = without
    return kept
