"""The argument types the subcommands share."""

import argparse


def integer_type(minimum, maximum=None):
    """An argument type: an integer ``>= minimum`` (and ``<= maximum`` if given)."""
    bound = f">= {minimum}" if maximum is None else f"in [{minimum}, {maximum}]"

    def parse(text):
        try:
            value = int(text)
        except ValueError:
            value = None
        too_large = maximum is not None and value is not None and value > maximum
        if value is None or value < minimum or too_large:
            raise argparse.ArgumentTypeError(
                f"must be an integer {bound}; got {text!r}"
            )
        return value

    return parse


def unit_interval_type(*, open_ends=False):
    """An argument type: a number in [0, 1], or in (0, 1) with ``open_ends``."""
    interval = "(0, 1)" if open_ends else "[0, 1]"

    def parse(text):
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"must be a number in {interval}; got {text!r}"
            ) from None
        if not (0.0 < value < 1.0 if open_ends else 0.0 <= value <= 1.0):
            raise argparse.ArgumentTypeError(f"must be in {interval}; got {text!r}")
        return value

    return parse
