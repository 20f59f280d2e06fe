"""Fair Mixup and DRAlign: penalties of the network, not only of its scores.

The penalties of :mod:`._penalties` are functions of the scores, so any
model can use them. These two need the network itself: Fair Mixup
differentiates the output with respect to the inputs, DRAlign with respect
to the weights. Each function takes the weights of a :mod:`._network` MLP
and a mini-batch, and returns the penalty's value and its gradient with
respect to every weight and bias (laid out like :func:`._network.backward`'s).
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
from scipy.special import expit

from ._network import (
    backward,
    dual_backward,
    forward,
    hessian_vector_product,
    tangent_forward,
)

MODEL_PENALTIES = ("mixup", "dralign")


def group_members(codes):
    """``{code: row indices}`` of the groups in the batch (codes >= 0)."""
    present = np.unique(codes[codes >= 0])
    return {int(g): np.flatnonzero(codes == g) for g in present}


def mixup_penalty(coefs, intercepts, X, codes, rng, *, dtype, dropout=0.0):
    """Fair Mixup's path penalty on a mini-batch, for the worst pair of groups.

    For a pair of groups ``(a, b)``, ``m = min(n_a, n_b)`` rows of each are
    paired in batch order (the batch is a random permutation), ``γ ~ Beta(1,
    1)`` is drawn once per call, ``x_mix = γ x_a + (1 - γ) x_b``, and the
    penalty is ``|mean_i ⟨∇ₓ f(x_mix_i), x_b_i - x_a_i⟩|`` with ``f`` the
    predicted probability: by the fundamental theorem of calculus, its mean
    over γ is the gap between the pair's mean scores. With more than two
    groups, the pair with the largest value is penalised.

    Returns ``(value, grads)``; ``grads`` is None when the batch holds fewer
    than two groups (and the value is 0).
    """
    members = group_members(codes)
    if len(members) < 2:
        return 0.0, None
    gamma = rng.beta(1.0, 1.0)
    best = None
    for a, b in combinations(members, 2):
        m = min(members[a].size, members[b].size)
        x_a, x_b = X[members[a][:m]], X[members[b][:m]]
        x_mix = gamma * x_a + (1.0 - gamma) * x_b
        z, cache = forward(
            coefs, intercepts, x_mix, dtype=dtype, rng=rng, dropout=dropout
        )
        p = expit(z)
        tangents, z_dot = tangent_forward(coefs, cache, input_tangent=x_b - x_a)
        mean = float(np.mean(p * (1.0 - p) * z_dot))
        if best is None or abs(mean) > abs(best[0]):
            best = (mean, cache, tangents, p, z_dot)
    mean, cache, tangents, p, z_dot = best
    # d|mean J|/dJ_i = sign/m, J_i = s_i ż_i with s = p(1-p), ds/dz = s(1-2p)
    c = np.sign(mean) / p.size
    s = p * (1.0 - p)
    grads = dual_backward(
        coefs, cache, tangents, c * z_dot * s * (1.0 - 2.0 * p), c * s
    )
    return abs(mean), grads


def _importances(coefs, grads, n_hidden):
    """DRAlign's neuron importance per hidden layer: ``sum_in (W ⊙ ∂ℓ/∂W)²``."""
    return [
        ((coefs[k] * grads[k]) ** 2).sum(axis=0, dtype=np.float64)
        for k in range(n_hidden)
    ]


def _cosine_and_grads(r_a, r_b):
    """``cos(r_a, r_b)`` and its gradients; 0 and no direction for a zero vector."""
    norm_a, norm_b = np.linalg.norm(r_a), np.linalg.norm(r_b)
    if norm_a == 0.0 or norm_b == 0.0:
        return 0.0, np.zeros_like(r_a), np.zeros_like(r_b)
    cos = float(r_a @ r_b / (norm_a * norm_b))
    d_a = r_b / (norm_a * norm_b) - cos * r_a / norm_a**2
    d_b = r_a / (norm_a * norm_b) - cos * r_b / norm_b**2
    return cos, d_a, d_b


def _rows(cache, rows):
    inputs, masks = cache
    return [a[rows] for a in inputs], [m[rows] for m in masks]


def dralign_alignment(coefs, cache, proba, y, codes):
    """DRAlign's alignment ``C = sum_l cos(r_a^l, r_b^l)`` and ``∂C/∂θ``.

    For each group ``g`` of the batch, ``ℓ_g`` is the mean log-loss of its
    rows and ``r_g^l[j] = sum_i (W_l[i, j] · ∂ℓ_g/∂W_l[i, j])²`` the
    importance of unit ``j`` of hidden layer ``l`` (the output layer and the
    biases are left out, as in the reference code). ``C`` is computed for the
    least aligned pair of groups (smallest ``C``). Its gradient needs the
    Hessian of ``ℓ_g`` along ``v_g = ∂C/∂r_g ⊙ 2 W² ⊙ ∂ℓ_g/∂W``, computed
    exactly by :func:`._network.hessian_vector_product`.

    ``cache`` and ``proba`` come from the forward pass of the batch. Returns
    ``(C, grads)``; ``grads`` is None when the batch holds fewer than two
    groups or the network has no hidden layer (and ``C`` is 0).
    """
    members = group_members(codes)
    n_hidden = len(coefs) - 1
    if len(members) < 2 or n_hidden == 0:
        return 0.0, None
    per_group = {}
    for g, rows in members.items():
        sub = _rows(cache, rows)
        weights = np.full(rows.size, 1.0 / rows.size)
        grads = backward(coefs, sub, weights * (proba[rows] - y[rows]))
        per_group[g] = (sub, rows, weights, grads, _importances(coefs, grads, n_hidden))
    scores = {
        pair: sum(
            _cosine_and_grads(ra, rb)[0]
            for ra, rb in zip(per_group[pair[0]][4], per_group[pair[1]][4])
        )
        for pair in combinations(members, 2)
    }
    a, b = min(scores, key=scores.get)
    total = [np.zeros_like(c, dtype=np.float64) for c in coefs] + [
        np.zeros(c.shape[1]) for c in coefs
    ]
    d_r = [
        _cosine_and_grads(ra, rb)[1:]
        for ra, rb in zip(per_group[a][4], per_group[b][4])
    ]
    for side, g in enumerate((a, b)):
        sub, rows, weights, grads, _ = per_group[g]
        vector = [np.zeros_like(c) for c in coefs] + [
            np.zeros(c.shape[1], dtype=c.dtype) for c in coefs
        ]
        for k in range(n_hidden):
            alpha = d_r[k][side][None, :]
            W, G = coefs[k].astype(np.float64), grads[k].astype(np.float64)
            total[k] += alpha * 2.0 * W * G**2  # through W directly
            vector[k] = (alpha * 2.0 * W**2 * G).astype(coefs[k].dtype)  # through ∂ℓ/∂W
        hv = hessian_vector_product(coefs, sub, proba[rows], y[rows], weights, vector)
        total = [t + h for t, h in zip(total, hv)]
    return float(scores[(a, b)]), total
