"""The MCDP paper's Figures 3 and 4 on Adult, from the benchmark's results
=======================================================================

Figure 3 of Jin et al. (ICML 2024) plots, for seven training methods and
five weights each, test average precision (AP) against test MCDP(0), each
point the mean of 5 seeds; Figure 4 plots MCDP(ε) over ε for the model of
each method selected as in the paper's Table 1 (the fairest on validation
among those keeping 95 % of ERM's validation AP).

Training the 180 models takes minutes, too long for the documentation build,
so this example draws the results that ``benchmarks/bench_inprocessing.py
--figure-csv`` wrote; the CSV next to this file is the one from the run
reported on the "Reproducing the papers" page. Re-run the benchmark to
redraw them from your own machine's models.

Both panels use skfair's Displays: one
:class:`~skfair.plotting.FairnessTradeoffDisplay` per method (performance
on the x axis, so better is *down and to the right*, where the paper's
Figure 3 has it up and to the left), and one
:class:`~skfair.plotting.MCDPCurveDisplay` per method.

Run: ``python examples/plot_mcdp_paper_figures.py``
"""

from pathlib import Path

import pandas as pd

try:
    HERE = Path(__file__).resolve().parent
except NameError:  # run cell by cell
    HERE = Path.cwd()
results = pd.read_csv(HERE / "mcdp_paper_adult_figures.csv")

METHODS = [
    "ERM",
    "AdvDebias",
    "DiffDP",
    "FairMixup",
    "DRAlign",
    "DiffABCC",
    "DiffMCDP",
    "AdvDebias (Zhang)",
]
methods = [m for m in METHODS if m in set(results["method"])]


def figure3(method):
    """Mean and std over seeds of test AP and MCDP(0), one row per weight."""
    rows = results[(results.figure == 3) & (results.method == method)]
    wide = rows.pivot(index="x", columns="metric", values=["mean", "std"])
    return wide.sort_index()


# %%
# Figure 3: the trade-off of every method
# ---------------------------------------
print("Figure 3 (test, mean over 5 seeds): weight, AP, MCDP(0)")
for method in methods:
    table = figure3(method)
    points = ", ".join(
        f"{w:g}: {ap:.3f} / {gap:.3f}"
        for w, ap, gap in zip(
            table.index, table[("mean", "AP")], table[("mean", "MCDP(0)")]
        )
    )
    print(f"  {method:<18} {points}")

try:
    import matplotlib.pyplot as plt
except ImportError:  # the tables printed are the result; the figures are optional
    plt = None

if plt is not None:
    from skfair.plotting import FairnessTradeoffDisplay, MCDPCurveDisplay

    fig, ax = plt.subplots(figsize=(7, 5))
    handles = []
    # Zhang's projected update is not in the paper's figure, and its points
    # (printed above) lie far to the left: leave it out of the plot.
    for k, method in enumerate(m for m in methods if m != "AdvDebias (Zhang)"):
        table = figure3(method)
        display = FairnessTradeoffDisplay(
            performance=table[("mean", "AP")].to_numpy(),
            unfairness=table[("mean", "MCDP(0)")].to_numpy(),
            performance_std=table[("std", "AP")].to_numpy(),
            unfairness_std=table[("std", "MCDP(0)")].to_numpy(),
            candidate_names=[f"{w:g}" for w in table.index],
            performance_name="test AP",
            fairness_name="test MCDP(0)",
        ).plot(ax=ax)
        # one colour per method: the Display draws every method in C0/C1
        data_line, caplines, barlines = display.errorbar_.lines
        for artist in (data_line, *caplines, *barlines):
            artist.set_color(f"C{k}")
        display.pareto_line_.set(color=f"C{k}", linestyle="-", linewidth=1)
        data_line.set_label(method)
        handles.append(data_line)
    erm_ap = figure3("ERM")[("mean", "AP")].iloc[0]
    handles.append(
        ax.axvline(0.95 * erm_ap, color="0.4", linestyle=":", label="95 % of ERM's AP")
    )
    ax.legend(handles=handles, fontsize="small", loc="upper left")
    ax.set_title("Adult (sex): AP vs MCDP(0), 5 seeds per weight")
    fig.tight_layout()

# %%
# Figure 4: MCDP(ε) of the selected models
# ----------------------------------------
curves = results[results.figure == 4]
print("\nFigure 4 (test, mean over 5 seeds): MCDP(ε) at ε = 0, 0.05, 0.1")
for method in methods:
    curve = curves[curves.method == method].set_index("x")["mean"]
    print(
        f"  {method:<18} " + ", ".join(f"{curve.loc[e]:.3f}" for e in (0.0, 0.05, 0.1))
    )

if plt is not None:
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for k, method in enumerate(methods):
        curve = curves[curves.method == method].sort_values("x")
        MCDPCurveDisplay(
            epsilons=curve["x"].to_numpy(),
            curves={"MCDP(ε)": curve["mean"].to_numpy()},
            name=method,
        ).plot(ax=ax, line_kwargs={"color": f"C{k}"})
    ax.set_title("Adult (sex): MCDP(ε) of the models of Table 1")
    fig.tight_layout()
