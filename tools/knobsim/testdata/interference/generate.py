#!/usr/bin/env python3
"""Writes the synthetic co-location measurements of the interference e2e test.

A known truth that is *not* the model's own form (so the test cannot pass by construction): each
job has a GPU utilization u and a memory-bandwidth utilization m (fractions), and a hidden
sensitivity k. Beside job b, job a slows down by

    slowdown_a = 0.55 * u_b * sqrt(u_a) + 0.35 * m_a * m_b + k_a * u_b

and runs at speed 1 / (1 + slowdown_a), measured with uniform noise of +-0.015. 40 jobs, every
unordered pair of distinct jobs measured once (780 pairs), split at random into a training half
and a test half. Python's random module (Mersenne Twister) with seed 20261202: the files are the
same on every run.

    python3 generate.py        # rewrites solo.csv, train_pairs.csv, test_pairs.csv here
"""

import math
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    rng = random.Random(20261202)
    jobs = []
    for j in range(40):
        u = 0.15 + 0.85 * rng.random()
        m = u * (0.15 + 0.7 * rng.random())
        memory = 800 + 22000 * rng.random()
        k = 0.12 * rng.random()
        jobs.append((f"job-{j:02d}", u, m, memory, k))

    def speed(a, b):
        _, ua, ma, _, ka = a
        _, ub, mb, _, _ = b
        slowdown = 0.55 * ub * math.sqrt(ua) + 0.35 * ma * mb + ka * ub
        return 1 / (1 + slowdown) + rng.uniform(-0.015, 0.015)

    pairs = []
    for i in range(len(jobs)):
        for j in range(i + 1, len(jobs)):
            pairs.append((jobs[i][0], jobs[j][0], speed(jobs[i], jobs[j]), speed(jobs[j], jobs[i])))
    rng.shuffle(pairs)
    half = len(pairs) // 2

    with open(os.path.join(HERE, "solo.csv"), "w") as f:
        f.write("job,gpu_util_pct,mem_bw_util_pct,memory_mib\n")
        for name, u, m, memory, _ in jobs:
            f.write(f"{name},{100 * u:.2f},{100 * m:.2f},{memory:.0f}\n")
    for name, part in (("train_pairs.csv", pairs[:half]), ("test_pairs.csv", pairs[half:])):
        with open(os.path.join(HERE, name), "w") as f:
            f.write("job_a,job_b,speed_a,speed_b\n")
            for a, b, sa, sb in part:
                f.write(f"{a},{b},{sa:.4f},{sb:.4f}\n")


if __name__ == "__main__":
    main()
