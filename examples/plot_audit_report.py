"""An audit report of a model on Adult
====================================

:func:`skfair.audit` evaluates one model's scores against the groups of its
sensitive attributes: every distribution metric with its confidence interval
and test, the per-group rates at a decision threshold, where the disparity
is, a recommended threshold, and four figures. The report renders as one
self-contained HTML page (shown below as the notebook would show it), as
Markdown, or as a dict.

This example trains a quick logistic regression on the bundled UCI Adult data
(without the sensitive columns) and audits it for ``sex`` and ``race``
together, leaving out intersections of fewer than 30 people.

Run: ``python examples/plot_audit_report.py``.
"""

import os

from sklearn.compose import make_column_transformer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

import skfair
from skfair.datasets import load_adult
from skfair.plotting import GroupCDFDisplay

# The documentation build sets SKFAIR_EXAMPLES_FAST=1: fewer rows, resamples.
FAST = os.environ.get("SKFAIR_EXAMPLES_FAST") == "1"

adult = load_adult()
X, y = adult.data, adult.target
X_train, X_test, y_train, y_test = train_test_split(
    X, y, test_size=0.3, stratify=y, random_state=0
)
if FAST:
    X_test, _, y_test, _ = train_test_split(
        X_test, y_test, train_size=5000, stratify=y_test, random_state=0
    )
sensitive = ["sex", "race"]
categorical = [c for c in X.columns if X[c].dtype.kind not in "biuf"]
model = make_pipeline(
    make_column_transformer(
        ("drop", sensitive),  # the model never sees them
        (
            OneHotEncoder(handle_unknown="ignore"),
            [c for c in categorical if c not in sensitive],
        ),
        remainder=StandardScaler(),
    ),
    LogisticRegression(max_iter=500),
).fit(X_train, y_train)
proba = model.predict_proba(X_test)[:, 1]

report = skfair.audit(
    y_test,
    proba,
    sensitive_features=X_test[sensitive],
    threshold=0.5,
    min_group_size=30,
    n_resamples=49 if FAST else None,
    n_permutations=49 if FAST else None,
    title="Logistic regression on Adult: sex × race",
)
print(report)
print(report.metrics[["value", "low", "high", "interval", "pvalue", "test"]])

# %%
# The figures use the report's groups
# -----------------------------------
# ``report.group_arguments()`` passes the report's groups (``combine`` and
# ``min_group_size``) to any Display, so a figure drawn here shows exactly the
# groups of the report's tables.

display = GroupCDFDisplay.from_predictions(
    y_test, proba, **report.group_arguments(), name="the audited groups"
)

# %%
# The report
# ----------
# In a notebook (and in this gallery) a report displays itself. Save it with
# ``open("audit_report.html", "w").write(report.to_html())``; the page loads
# nothing from elsewhere and needs no JavaScript. The same from the command
# line: ``python -m skfair audit --dataset adult --output report.html``.

report
