#!/usr/bin/python3
"""Figures of docs/online-completion-real-data.md (needs python3-matplotlib, python3-numpy, python3-pil).

MovieLens: test RMSE vs ratings seen for the online estimator, the final values of the offline ones
as horizontal lines:
  real_data_figures.py movielens RESULTS_DIR --out docs/figures/omc_real_movielens.png
Camera: the original, the observed pixels and the reconstructions of every estimator of
camera.json at one observed fraction and rank (each estimator is run once more with the
export_matrix metric), and the truncated-SVD floor of the full image:
  real_data_figures.py camera --fraction 0.2 --rank 30 --out docs/figures/omc_real_camera.png
  real_data_figures.py svd-floor --ranks 10 20 30 50      (the floor table only)
The rankone binary is build/bin/rankone, or $RANKONE_BIN.
"""
import argparse
import csv
import io
import json
import os
import subprocess
import tempfile

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from PIL import Image  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
RANKONE = os.environ.get("RANKONE_BIN", os.path.join(ROOT, "build", "bin", "rankone"))
CAMERA = os.path.join(HERE, "camera.json")


def rankone(*args):
    return subprocess.run([RANKONE, *args], check=True, capture_output=True, text=True).stdout


def camera_image():
    data = os.environ.get("RANKONE_DATA", os.path.expanduser("~/.cache/rankone/datasets"))
    return np.asarray(Image.open(os.path.join(data, "camera", "camera.png")).convert("L"), dtype=float) / 255.0


def svd_floor(image, ranks):
    """Relative Frobenius error and PSNR of the best rank-r approximation of the full image."""
    u, s, vt = np.linalg.svd(image)
    rows = []
    for r in ranks:
        approx = (u[:, :r] * s[:r]) @ vt[:r]
        mse = np.mean((approx - image) ** 2)
        rows.append((r, np.linalg.norm(approx - image) / np.linalg.norm(image), 10 * np.log10(1.0 / mse)))
    return rows


def movielens(args):
    rows = list(csv.DictReader(io.StringIO(rankone("export", args.results, "--format", "csv"))))
    panels = {}  # one panel per value of the swept data.split (a single panel when not swept)
    for r in rows:
        if r["metric"] == "test_rmse":
            curves = panels.setdefault(r.get("data.split", ""), {})
            curves.setdefault(r["label"], []).append((int(r["iteration"]), int(r["samples"]), float(r["value"])))
    fig, axes = plt.subplots(1, len(panels), figsize=(6.5 * len(panels), 4.6), squeeze=False)
    for ax, (split, curves) in zip(axes[0], sorted(panels.items())):
        colours = iter(plt.rcParams["axes.prop_cycle"].by_key()["color"])
        for label, points in sorted(curves.items()):
            points.sort()
            colour = next(colours)
            final = points[-1][2]
            print(f"{split or '-'} {label}: final test RMSE {final:.4f}")
            if final > args.ymax:
                ax.plot([], [], color=colour, label=f"{label} ({final:.3f}, off the scale)")
            elif len({p[1] for p in points}) > 1:  # an online estimator: one point per batch
                ax.plot([p[1] for p in points], [p[2] for p in points], "-o", ms=3, color=colour,
                        label=f"{label} (final {final:.4f})")
            else:  # offline: fitted on the whole training period; its final value as a line
                ax.axhline(final, color=colour, ls="--", label=f"{label} (offline, {final:.4f})")
        ax.set_ylim(top=args.ymax)
        ax.set_xlabel("training ratings seen (timestamp order)")
        ax.set_ylabel("test RMSE")
        ax.set_title(f"MovieLens ml-latest-small, {split or ''} split".replace(",  split", ""))
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(args.out, dpi=110)


def camera(args):
    resolved = json.loads(rankone("validate", CAMERA))
    # The sweep's zip groups move the warm start with the fraction and the ranks together: apply
    # the entries of the group that holds data.test_fraction at the chosen fraction.
    overrides = {"data.test_fraction": 1.0 - args.fraction}
    for group in resolved.get("sweep", {}).get("zip", []):
        if "data.test_fraction" in group:
            at = [round(v, 9) for v in group["data.test_fraction"]].index(round(1.0 - args.fraction, 9))
            overrides.update({path: values[at] for path, values in group.items()})
    image = camera_image()
    panels = [("original", image), None]
    floor = svd_floor(image, [args.rank])[0]
    work = tempfile.mkdtemp(prefix="omc-camera-")
    mask = None
    for index, estimator in enumerate(resolved["estimators"]):
        est = dict(estimator)
        for path, value in overrides.items():
            prefix = f"estimators.{index}."
            if path.startswith(prefix):
                est[path[len(prefix):]] = value
        est["rank"] = args.rank
        matrix, held = os.path.join(work, f"{est['label']}.csv"), os.path.join(work, "test.csv")
        metrics = [{"name": "export_matrix", "path": matrix, "test_path": held}, "test_relative_error", "test_psnr"]
        out = os.path.join(work, est["label"])
        rankone("run", CAMERA, "sweep={}", f"data.test_fraction={1.0 - args.fraction}",
                "estimators=" + json.dumps([est]), "metrics=" + json.dumps(metrics), "--out", out, "--quiet")
        values = {r["metric"]: float(r["value"]) for r in csv.DictReader(io.StringIO(rankone("export", out)))}
        completed = np.loadtxt(matrix, delimiter=",")
        if mask is None:
            test = np.loadtxt(held, delimiter=",", skiprows=1)
            mask = np.ones_like(image, dtype=bool)
            mask[test[:, 0].astype(int), test[:, 1].astype(int)] = False
        panels.append((f"{est['label']}\nPSNR {values['test_psnr']:.2f} dB, rel. err {values['test_relative_error']:.3f}",
                       completed))
    panels[1] = (f"observed {100 * args.fraction:.0f} % of the pixels", np.where(mask, image, 0.0))
    panels.insert(2, (f"best rank {args.rank} (truncated SVD of the full image)\n"
                      f"PSNR {floor[2]:.2f} dB, rel. err {floor[1]:.3f}", None))
    u, s, vt = np.linalg.svd(image)
    panels[2] = (panels[2][0], (u[:, :args.rank] * s[:args.rank]) @ vt[:args.rank])
    columns = 3
    rows = (len(panels) + columns - 1) // columns
    fig, axes = plt.subplots(rows, columns, figsize=(4 * columns, 4.9 * rows))
    for ax in axes.flat:
        ax.axis("off")
    for ax, (title, picture) in zip(axes.flat, panels):
        ax.imshow(np.clip(picture, 0.0, 1.0), cmap="gray", vmin=0.0, vmax=1.0)
        ax.set_title(title, fontsize=9)
    fig.suptitle(f"camera.png, {100 * args.fraction:.0f} % observed, rank {args.rank} "
                 "(errors on the unobserved pixels; SVD: on all pixels)", fontsize=10)
    fig.tight_layout()
    fig.savefig(args.out, dpi=100)
    print(f"wrote {args.out} (work files in {work})")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    m = sub.add_parser("movielens")
    m.add_argument("results")
    m.add_argument("--out", required=True)
    m.add_argument("--ymax", type=float, default=1.15, help="top of the RMSE axis (curves above are listed only)")
    c = sub.add_parser("camera")
    c.add_argument("--fraction", type=float, default=0.2, help="observed fraction of the pixels")
    c.add_argument("--rank", type=int, default=30)
    c.add_argument("--out", required=True)
    f = sub.add_parser("svd-floor")
    f.add_argument("--ranks", type=int, nargs="+", default=[10, 20, 30, 50])
    args = parser.parse_args()
    if args.command == "movielens":
        movielens(args)
    elif args.command == "camera":
        camera(args)
    else:
        print("| rank | relative Frobenius error | PSNR (dB) |\n|---|---|---|")
        for r, error, psnr in svd_floor(camera_image(), args.ranks):
            print(f"| {r} | {error:.4f} | {psnr:.2f} |")


if __name__ == "__main__":
    main()
