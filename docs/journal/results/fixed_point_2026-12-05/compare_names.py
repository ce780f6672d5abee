#!/usr/bin/env python3
"""compare_names.py A B: of the queries written by query_driver, how many rank different names (ids or
order), and the largest difference of two scores at the same rank."""
import sys

a = [line.split() for line in open(sys.argv[1])]
b = [line.split() for line in open(sys.argv[2])]
differ = sum(1 for x, y in zip(a, b) if x[0::2] != y[0::2])
largest = max((abs(float(s) - float(t)) for x, y in zip(a, b) for s, t in zip(x[1::2], y[1::2])), default=0.0)
print(f"{len(a)} queries, {differ} ranking other names; largest score difference at a rank {largest:.3g}")
