"""Step-by-step agreement of an FM baseline's solver with its numpy reference, on a C++ run's data.

    python3 agree_fm.py DIR

DIR holds what a C++ test wrote (tests/fm_baselines): case.json with "method" (polynomial_network
or fm_mcmc), "iterations" and "tolerance", the training set (X.npy: d x n, y.npy) and the C++
states; each method's module reads its own files (polynomial_network.agree, fm_mcmc.agree).
Prints one line per iterate; exits 1 when any relative gap exceeds case["tolerance"].
"""

import json
import os
import sys

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

sys.dont_write_bytecode = True  # no __pycache__ left in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fm_mcmc  # noqa: E402
import polynomial_network  # noqa: E402

METHODS = {"polynomial_network": polynomial_network.agree, "fm_mcmc": fm_mcmc.agree}


def main(folder):
    with open(os.path.join(folder, "case.json")) as f:
        case = json.load(f)
    method = case.get("method")
    if method not in METHODS:
        raise SystemExit(f"{folder}/case.json: unknown method {method!r} (expected one of {sorted(METHODS)})")
    gaps = METHODS[method](folder, case)
    if len(gaps) != case["iterations"]:
        print(f"{len(gaps)} iterates replayed, case.json says {case['iterations']}")
        return 1
    worst = 0.0
    for t, gap in gaps:
        print(f"{method} t={t}: relative gap {gap:.3e}")
        worst = max(worst, gap)
    print(f"worst gap {worst:.3e} (tolerance {case['tolerance']:.1e})")
    return 0 if worst <= case["tolerance"] else 1


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    sys.exit(main(sys.argv[1]))
