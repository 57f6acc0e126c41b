#!/usr/bin/env python3
"""Prints the measured numbers of the τ test (docs/plugins/fm_moment_elimination.md, "The τ test")
from a run of its unit tests, tests/fm_subgaussian/test_tau_test.cpp (fixed seeds), as they
capture them.

usage: fm_tau_test.py spread       the delta-method standard error against the spread of T̂ over replicates
       fm_tau_test.py acceptance   smallest bounds of τ > 0 laws, τ = 0 refusals, a law just below the threshold
       fm_tau_test.py refusal      the message of a refused run
"""

from catch_test import captured, run
from results import count, fail, print_code, run_subcommand, sig

TESTS = "test_fm_subgaussian"
# The test's enum Law, in its order: CAPTURE prints the index.
LAWS = ["Gaussian", "uniform", "centred exponential"]
LAW = "static_cast<int>(c.law)"


def spread():
    assertions, _ = run(TESTS, "tau_bound: the delta-method standard error*")
    rows = captured(assertions, LAW, "c.n", "spread", "predicted", "mean_se", "b.estimate.mean()")
    print("| law | n | sd of T̂ over the replicates (sd) | delta method √(Var ψ / n) | sd / it − 1 "
          "| mean of the estimated se | sd / it − 1 | mean of T̂ |")
    print("|---|---|---|---|---|---|---|---|")
    for law, n, spread_, predicted, mean_se, mean in rows:
        print(f"| {LAWS[law]} | {count(n)} | {sig(spread_, 3)} | {sig(predicted, 3)} | {percent(spread_ / predicted - 1)} "
              f"| {sig(mean_se, 3)} | {percent(spread_ / mean_se - 1)} | {sig(mean, 3)} |")


def percent(x):
    return f"{x * 100:+.1f} %".replace("-", "−")


def acceptance():
    assertions, _ = run(TESTS, "tau_bound passes tau > 0 laws*", "tau_bound: a law just below*",
                        "fm_moment_elimination refuses standardised Bernoulli*")
    print("| law | d | n | smallest bound over the seeds | smallest plain bound `T̂ − z se` |")
    print("|---|---|---|---|---|")
    for law, d, n, smallest, plain in captured(assertions, LAW, "c.d", "c.n", "smallest", "smallest_plain"):
        print(f"| {LAWS[law]} | {d} | {count(n)} | {sig(smallest, 3)} | {sig(plain, 3).replace('-', '−')} |")
    print()
    seeds, refused = {}, {}
    for a in assertions:  # one message per (d, seed), captured for each of its checks
        if "run.summary.message" in a.values:
            seeds.setdefault(a["d"], set()).add(a["seed"])
            if "below tau_threshold" in a["run.summary.message"]:
                refused.setdefault(a["d"], set()).add(a["seed"])
    old = dict(captured(assertions, "d", "old_rule_passed"))
    if not seeds or set(seeds) != set(old):
        fail("test_tau_test.cpp: the Bernoulli refusals were not captured")
    for d in sorted(seeds):
        print(f"- standardised Bernoulli(0.03), d = {d}: refused on {len(refused.get(d, ()))} of {len(seeds[d])} seeds; "
              f"the former rule let {old[d]} of them through;")
    (cleared, mean), = captured(assertions, "cleared", "b.estimate.mean()")
    print(f"- the law just below the threshold: the bound cleared it on {cleared} coordinates (mean of T̂ {sig(mean, 3)}).")


def refusal():
    assertions, _ = run(TESTS, "fm_moment_elimination: the refusal states*")
    (message,), = captured(assertions, "refused.summary.message")
    print_code(message)


def main():
    run_subcommand({"spread": spread, "acceptance": acceptance, "refusal": refusal})


if __name__ == "__main__":
    main()
