"""The SQL the engine runs, as text, for people who want to run it themselves.

narwhals builds DuckDB queries as DuckDB relations, and a relation prints
its SQL (``DuckDBPyRelation.sql_query()``): :func:`histogram_sql` is the
text of pass 1 (per group and score bin, the counts every exact metric
starts from). :func:`ks_sql` is written by hand: the exact two-sample
Kolmogorov–Smirnov statistic (MCDP(0)) of every pair of groups in one
query, with the ties collapsed to distinct scores before the running sum
(a running sum counts rows, not values) and the CDF gap's numerator
``c_a n_b - c_b n_a`` kept in integers, so that its value is bit-for-bit
:func:`skfair.metrics.mcdp`'s ``pair_values``.
"""

from __future__ import annotations

from ._frame import LazyColumns
from ._passes import grid_for, histogram_query

LAZY_SQL_BACKEND_ERROR = (
    "The SQL text is DuckDB's: data must be a DuckDB relation (e.g. "
    "duckdb.sql('SELECT * FROM preds') or skfair's scan_files); got {type}."
)


def histogram_sql(
    data, y_score, *, sensitive_features, sample_weight=None, low=0.0, high=1.0
):
    """The SQL text of pass 1 (the per-group score histogram) on DuckDB.

    Parameters
    ----------
    data : duckdb.DuckDBPyRelation
        The predictions.
    y_score : str
        The score column.
    sensitive_features : str or list of str
        The sensitive columns.
    sample_weight : str or None, default=None
        A weight column; its sums per bin are added.
    low, high : float, default=0.0, 1.0
        The scores' range: it fixes the grid (``floor(score * 2**16)`` for
        [0, 1]).

    Returns
    -------
    sql : str
        One ``SELECT`` returning, per sensitive row and bin, ``hist`` (the
        count) and, with weights, ``whist``.

    Examples
    --------
    >>> import duckdb
    >>> from skfair.metrics._lazy import histogram_sql
    >>> rel = duckdb.sql("SELECT 0.25 AS score, 'a' AS sex")
    >>> sql = histogram_sql(rel, "score", sensitive_features="sex")
    >>> 'floor(("score" * 65536.0' in sql, 'GROUP BY "sex", "__skfair_bin"' in sql
    (True, True)
    """
    columns = LazyColumns(data, y_score, sensitive_features, sample_weight)
    if columns.frame.implementation.name != "DUCKDB":
        raise TypeError(LAZY_SQL_BACKEND_ERROR.format(type=type(data).__name__))
    want = ["hist"] + (["whist"] if sample_weight is not None else [])
    query = histogram_query(columns, grid_for(low, high, want))
    return query.to_native().sql_query()


def _quoted(name):
    return '"' + name.replace('"', '""') + '"'


def ks_sql(table, y_score, *, sensitive_features):
    """Hand-written SQL of the exact KS statistic (MCDP(0)) of every pair of groups.

    Parameters
    ----------
    table : str
        A table, view or table function of the predictions, as SQL text
        (``"preds"``, ``"read_parquet('preds/*.parquet')"``).
    y_score : str
        The score column.
    sensitive_features : str or list of str
        The sensitive columns; several are intersected.

    Returns
    -------
    sql : str
        A query with one row per pair of groups: the sensitive columns of
        the first group (prefixed ``a_``) and of the second (``b_``),
        ``n_a``, ``n_b`` and ``ks``, equal to the in-memory
        ``mcdp_details(...).pair_values`` bit for bit.

    Examples
    --------
    >>> import duckdb
    >>> from skfair.metrics._lazy import ks_sql
    >>> con = duckdb.connect()
    >>> _ = con.sql("CREATE TABLE preds AS SELECT * FROM (VALUES "
    ...             "(0.1, 'a'), (0.2, 'a'), (0.3, 'a'), (0.4, 'a'), (0.5, 'a'), "
    ...             "(0.12, 'b'), (0.33, 'b'), (0.35, 'b'), (0.6, 'b'), (0.9, 'b')"
    ...             ") t(score, g)")
    >>> con.sql(ks_sql("preds", "score", sensitive_features="g")).fetchall()
    [('a', 'b', 5, 5, 0.4)]
    """
    names = (
        [sensitive_features]
        if isinstance(sensitive_features, str)
        else list(sensitive_features)
    )
    keys = ", ".join(_quoted(n) for n in names)
    score = _quoted(y_score)
    labels = ", ".join(
        f"{side}.{_quoted(n)} AS {_quoted(side + '_' + n)}"
        for side in ("a", "b")
        for n in names
    )
    return f"""WITH counts AS (
    SELECT {keys}, {score} AS skfair_score, count(*) AS skfair_n
    FROM {table} GROUP BY {keys}, {score}
), groups AS (
    SELECT {keys}, sum(skfair_n) AS skfair_size,
           dense_rank() OVER (ORDER BY {keys}) AS skfair_group
    FROM counts GROUP BY {keys}
), points AS (
    SELECT skfair_group, skfair_score, skfair_n
    FROM counts JOIN groups USING ({keys})
), pairs AS (
    SELECT a.skfair_group AS ga, b.skfair_group AS gb,
           a.skfair_size AS na, b.skfair_size AS nb
    FROM groups a JOIN groups b ON a.skfair_group < b.skfair_group
), steps AS (  -- ties collapsed: one step per pair and distinct score
    SELECT ga, gb, na, nb, skfair_score,
           sum(CASE WHEN skfair_group = ga THEN skfair_n * nb
                    ELSE -skfair_n * na END) AS step
    FROM pairs JOIN points
      ON points.skfair_group = pairs.ga OR points.skfair_group = pairs.gb
    GROUP BY ga, gb, na, nb, skfair_score
), gaps AS (  -- c_a(t) n_b - c_b(t) n_a, an exact integer
    SELECT ga, gb, na, nb,
           sum(step) OVER (PARTITION BY ga, gb ORDER BY skfair_score
                           ROWS UNBOUNDED PRECEDING) AS numerator
    FROM steps
), ks AS (
    SELECT ga, gb, na, nb,
           CAST(max(abs(numerator)) AS DOUBLE)
           / (CAST(na AS DOUBLE) * CAST(nb AS DOUBLE)) AS ks
    FROM gaps GROUP BY ga, gb, na, nb
)
SELECT {labels}, CAST(na AS BIGINT) AS n_a, CAST(nb AS BIGINT) AS n_b, ks
FROM ks JOIN groups a ON a.skfair_group = ks.ga
        JOIN groups b ON b.skfair_group = ks.gb
ORDER BY ks.ga, ks.gb"""
