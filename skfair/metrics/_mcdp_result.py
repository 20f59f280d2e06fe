"""The result of :func:`~skfair.metrics.mcdp_details`: MCDP and where it peaks."""

from __future__ import annotations

from dataclasses import dataclass, field, fields


@dataclass(frozen=True)
class MCDPResult:
    """MCDP(ε) together with where its maximum is attained.

    Attributes
    ----------
    value : float
        MCDP(ε), aggregated over pairs of groups with ``agg``.
    epsilon : float
        The neighbourhood radius ε.
    method : str
        "exact" or "approx".
    attribute : str
        Name of the grouping (attribute or intersection) of the worst pair.
    groups : tuple
        Labels ``(a, b)`` of the worst pair of groups.
    window : tuple of float
        ``(low, high)``, in the scores' units: the interval of scores over
        which the worst pair's CDF gap stays at least ``pair_values[groups]``.
        For ε = 0 it is the degenerate ``(threshold, threshold)``; for ε > 0
        a window of width 2ε (or ``[lo, lo + ε]``, the neighbourhood of the
        domain's lower end), clipped to the domain ``[lo, hi]`` ([0, 1] by
        default).
        When several windows attain the maximum, one of them is reported
        (always the same one for the same input).
    threshold : float or None
        For ε = 0, the score ``t`` maximising ``|F_a(t) - F_b(t)|`` (the gap is
        the same for every threshold in ``[t, next score)``); None for ε > 0.
    higher_cdf_group : object
        The label of the group whose CDF is higher at ``threshold`` (ε = 0), or
        where the smallest gap inside ``window`` is attained (ε > 0): the
        group with more *low* scores there.
    pair_values : dict or mapping
        MCDP(ε) of every pair of groups, keyed by ``(attribute, a, b)``. A
        dict, except for a grouping of 100 groups or more with
        ``agg="max"`` and the exact method: then a read-only mapping with
        the same keys, order and values, evaluated when first read (a dict
        of the 50 million pairs of 10,000 groups takes about 10 GB; the
        worst pair is found without it).
    class_label : object or None
        For class probabilities (``y_score`` of shape ``(n_samples,
        n_classes)``), the class whose MCDP(ε) is the largest: the other
        fields (``groups``, ``threshold``, ``window``, ``pair_values``, ...)
        describe that class, while ``value`` is the ``class_agg`` over the
        classes. None for 1-D scores.
    per_class : dict or None
        For class probabilities, each class's own :class:`MCDPResult`, keyed
        by class; None for 1-D scores.
    given : {"positive", "negative"} or None
        The true label of the compared samples (see ``given`` in
        :func:`~skfair.metrics.mcdp`): "positive", "negative", or None when
        every sample is compared; for ``given="both"``, the side whose
        MCDP(ε) is the larger (the first on a tie). Shown in the repr when
        set.

    Examples
    --------
    >>> from skfair.metrics import mcdp_details
    >>> res = mcdp_details(None, [.1, .2, .3, .4, .5, .12, .33, .35, .6, .9],
    ...                    sensitive_features=[0] * 5 + [1] * 5)
    >>> res.groups, res.pair_values
    ((0, 1), {('sensitive_features', 0, 1): 0.4})
    """

    value: float
    epsilon: float
    method: str
    attribute: str
    groups: tuple
    window: tuple
    threshold: float | None
    higher_cdf_group: object
    pair_values: dict = field(repr=False)
    class_label: object = None
    per_class: dict | None = field(default=None, repr=False)
    given: str | None = None

    def __repr__(self):
        shown = [
            f"{f.name}={getattr(self, f.name)!r}"
            for f in fields(self)
            if f.repr and (f.name != "given" or self.given is not None)
        ]
        return f"{type(self).__name__}({', '.join(shown)})"
