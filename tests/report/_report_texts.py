"""Helpers of the report tests: a quiet audit and a report's three texts."""

import html
import re
import warnings

from skfair import audit
from skfair.utils import SmallGroupWarning


def quiet_audit(*args, **kwargs):
    """:func:`skfair.audit` without its small-group warnings."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SmallGroupWarning)
        return audit(*args, **kwargs)


def texts(report):
    """(dict, Markdown, the HTML page's text without tags)."""
    page = report.to_html(figures=False)
    text = html.unescape(re.sub(r"<[^>]+>", " ", page))
    return report.to_dict(), report.to_markdown(), re.sub(r"\s+", " ", text)
