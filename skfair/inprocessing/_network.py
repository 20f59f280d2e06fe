"""A ReLU multi-layer perceptron in numpy: first- and second-order passes.

Plain functions on the weights ``coefs`` (``coefs[l]`` of shape
(fan_in, fan_out)) and biases ``intercepts``, shared by the in-processing
estimators:

- :func:`forward` and :func:`backward`, the logits and the gradient of any
  loss given its gradient with respect to the logits;
- :func:`tangent_forward` and :func:`dual_backward`, forward-mode
  derivatives along a direction of the *inputs* (Fair Mixup's
  ``⟨∇ₓ f(x), d⟩``) or of the *parameters* (a Hessian-vector product,
  DRAlign), and the gradient of a loss of those derivatives;
- :func:`hessian_vector_product` of the mean log-loss of some rows.

The ReLU (and dropout) masks are held fixed: they are piecewise constant,
so these are the exact derivatives wherever no unit sits exactly at 0.
"""

from __future__ import annotations

import numpy as np


class Adam:
    """Adam (Kingma & Ba, 2015) with PyTorch's defaults and bias correction."""

    def __init__(self, params, beta1=0.9, beta2=0.999, eps=1e-8):
        self.beta1, self.beta2, self.eps = beta1, beta2, eps
        self.m = [np.zeros_like(p) for p in params]
        self.v = [np.zeros_like(p) for p in params]
        self.t = 0

    def step(self, params, grads, lr):
        self.t += 1
        c1, c2 = 1.0 - self.beta1**self.t, 1.0 - self.beta2**self.t
        for p, g, m, v in zip(params, grads, self.m, self.v):
            m *= self.beta1
            m += (1.0 - self.beta1) * g
            v *= self.beta2
            v += (1.0 - self.beta2) * g * g
            p -= lr * (m / c1) / (np.sqrt(v / c2) + self.eps)


def batches(n_samples, batch_size, rng):
    """Endless mini-batches: a fresh permutation per epoch, last one dropped."""
    size = min(batch_size, n_samples)
    while True:
        order = rng.permutation(n_samples)
        for start in range(0, n_samples - size + 1, size):
            yield order[start : start + size]


def init_params(sizes, rng, dtype):
    """PyTorch's ``nn.Linear`` initialisation: uniform in ``±1/sqrt(fan_in)``."""
    coefs, intercepts = [], []
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:]):
        bound = 1.0 / np.sqrt(fan_in)
        coefs.append(rng.uniform(-bound, bound, (fan_in, fan_out)).astype(dtype))
        intercepts.append(rng.uniform(-bound, bound, fan_out).astype(dtype))
    return coefs, intercepts


def forward(coefs, intercepts, X, *, dtype, rng=None, dropout=0.0):
    """Logits and the cache ``(inputs, masks)`` of the backward passes.

    The logits have shape (n,) for a network of one output, (n, K) for ``K``.

    ``inputs[l]`` is the input of layer ``l`` (``inputs[0]`` is ``X``);
    ``masks[l]`` multiplies the pre-activation of hidden layer ``l`` into its
    output: the ReLU's 0/1, times ``keep / (1 - dropout)`` when ``rng`` is
    given and ``dropout > 0``.
    """
    h = X.astype(dtype, copy=False)
    inputs, masks = [h], []
    for W, b in zip(coefs[:-1], intercepts[:-1]):
        u = h @ W.astype(dtype, copy=False) + b
        mask = (u > 0).astype(dtype)
        if rng is not None and dropout > 0:
            keep = rng.random(u.shape) >= dropout
            mask *= (keep / (1.0 - dropout)).astype(dtype)
        h = u * mask
        inputs.append(h)
        masks.append(mask)
    z = h @ coefs[-1].astype(dtype, copy=False) + intercepts[-1]
    z = z[:, 0] if z.shape[1] == 1 else z
    return z.astype(np.float64), (inputs, masks)


def backward(coefs, cache, grad_z):
    """Gradients (weights, then biases) given d(loss)/d(logits) per row.

    ``grad_z`` has the shape of the logits: (n,) for one output, (n, K).
    """
    inputs, masks = cache
    delta = grad_z.reshape(grad_z.shape[0], -1).astype(inputs[0].dtype)
    grads_W, grads_b = [], []
    for layer in range(len(coefs) - 1, -1, -1):
        grads_W.append(inputs[layer].T @ delta)
        grads_b.append(delta.sum(axis=0))
        if layer:
            delta = (delta @ coefs[layer].T) * masks[layer - 1]
    return grads_W[::-1] + grads_b[::-1]


def tangent_forward(coefs, cache, *, input_tangent=None, param_tangent=None):
    """Directional derivatives of every layer's input and of the logits.

    Along ``input_tangent`` (a direction of the rows of ``X``, shape of
    ``X``) and/or ``param_tangent`` (a direction of the parameters, laid out
    like the gradients: weights, then biases). Returns ``(tangents, z_dot)``
    with ``tangents[l]`` the derivative of ``inputs[l]``.
    """
    inputs, masks = cache
    n_layers = len(coefs)
    dt = inputs[0].dtype
    t = (
        np.zeros_like(inputs[0])
        if input_tangent is None
        else input_tangent.astype(dt, copy=False)
    )
    tangents = [t]
    for layer in range(n_layers):
        u_dot = t @ coefs[layer].astype(dt, copy=False)
        if param_tangent is not None:
            V, c = param_tangent[layer], param_tangent[n_layers + layer]
            u_dot = u_dot + inputs[layer] @ V.astype(dt, copy=False) + c
        if layer < n_layers - 1:
            t = u_dot * masks[layer]
            tangents.append(t)
    return tangents, u_dot[:, 0].astype(np.float64)


def dual_backward(coefs, cache, tangents, grad_z, grad_z_dot, param_tangent=None):
    """Gradient of a loss of the logits ``z`` and of their tangents ``ż``.

    ``grad_z`` and ``grad_z_dot`` are the loss's derivatives with respect to
    ``z`` and ``ż`` (per row); ``tangents`` come from :func:`tangent_forward`
    with the same ``param_tangent``. With a parameter tangent ``v``, ``ż``
    depends on the parameters through ``v``'s layers as well, and with
    ``grad_z = w·p(1-p)·ż`` and ``grad_z_dot = w·(p - y)`` this is the
    Hessian-vector product of the weighted log-loss (Pearlmutter's R-op).
    """
    inputs, masks = cache
    n_layers = len(coefs)
    dt = inputs[0].dtype
    g = grad_z[:, None].astype(dt)  # d loss / d pre-activation (primal)
    g_dot = grad_z_dot[:, None].astype(dt)  # d loss / d its tangent
    grads_W, grads_b = [], []
    for layer in range(n_layers - 1, -1, -1):
        grads_W.append(inputs[layer].T @ g + tangents[layer].T @ g_dot)
        grads_b.append(g.sum(axis=0))
        if layer:
            W = coefs[layer]
            back = g @ W.T
            if param_tangent is not None:
                back += g_dot @ param_tangent[layer].astype(dt, copy=False).T
            g = back * masks[layer - 1]
            g_dot = (g_dot @ W.T) * masks[layer - 1]
    return grads_W[::-1] + grads_b[::-1]


def hessian_vector_product(coefs, cache, proba, y, weights, vector):
    """``H v`` of ``sum_i weights_i · log-loss_i`` at the cached forward pass.

    ``cache`` and ``proba`` (the sigmoid of the logits) come from the
    :func:`forward` pass of the rows that ``y`` and ``weights`` refer to;
    ``vector`` is laid out like the gradients. Exact (masks held fixed), at
    the cost of about two more forward and backward passes.
    """
    tangents, z_dot = tangent_forward(coefs, cache, param_tangent=vector)
    return dual_backward(
        coefs,
        cache,
        tangents,
        weights * proba * (1.0 - proba) * z_dot,
        weights * (proba - y),
        param_tangent=vector,
    )
