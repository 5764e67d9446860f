#!/usr/bin/env python3
"""Replays the first-batch rules on solves.txt's counts (iterations taken a solve, 136 solves):
the old rule (the last solve's count plus one) and e3ccdd7's (the smaller of the last two converged
solves' counts plus one; a solve at its limit of 200 leaves the guess). After the first batch,
batches of linear.batch = 2, doubling, up to 1024; the stop is seen one iteration after the last
taken. Prints each rule's iterations enqueued and control reads; the old rule's must equal the
counted 1 610 and 227 (checked).
    python3 replay.py"""
import os, re

here = os.path.dirname(os.path.abspath(__file__))
taken = [int(m.group(1)) for m in re.finditer(r"taken (\d+)", open(os.path.join(here, "solves.txt")).read())]
LIMIT, THEN, MAX = 200, 2, 1024


def run(first, need):
    enq, reads, batch, start = 0, 0, first, True
    while enq < LIMIT + 1:
        enq += min(batch, LIMIT + 1 - enq)
        reads += 1
        if enq >= need:
            break
        batch = THEN if start else min(batch * 2, MAX)
        start = False
    return enq, reads


def replay(new_rule):
    last = before = 0
    total_enq = total_reads = 0
    for t in taken:
        if new_rule:
            guess = min(last, before) if before > 0 else last
        else:
            guess = last
        first = guess + 1 if guess > 0 else 16
        e, r = run(first, min(t + 1, LIMIT + 1))
        total_enq += e
        total_reads += r
        converged = t < LIMIT
        if not new_rule:
            last = t
        elif converged:
            before, last = last, t
    return total_enq, total_reads


old, new = replay(False), replay(True)
print(f"solves {len(taken)}, taken {sum(taken)}")
print(f"old rule: enqueued {old[0]}, control reads {old[1]}")
print(f"new rule: enqueued {new[0]}, control reads {new[1]}")
assert old == (1610, 227), "the replay does not reproduce the counted old rule"
