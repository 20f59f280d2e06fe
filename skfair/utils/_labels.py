"""How a group's label is written: one function for every table, legend and message.

An intersection's label is a tuple of its attributes' values. Written with
" & " between the parts it reads naturally ("Female & White"), but census
labels contain " & " themselves ("Native Hawaiian & Other Pacific
Islander"), so a part that contains the separator or a double quote is
written in double quotes (inner quotes doubled, as in CSV). The written form
is then unambiguous, and :func:`parse_group_label` reads it back.
"""

SEPARATOR = " & "


def _quoted(part):
    text = str(part)
    if SEPARATOR in text or '"' in text:
        return '"' + text.replace('"', '""') + '"'
    return text


def group_label_text(label):
    """The written form of a group's label.

    Parameters
    ----------
    label : object or tuple
        A group's label; a tuple for an intersection of several attributes.

    Returns
    -------
    str

    Examples
    --------
    >>> from skfair.utils._labels import group_label_text
    >>> group_label_text(("Female", "White"))
    'Female & White'
    >>> group_label_text(("Female", "Native Hawaiian & Other Pacific Islander"))
    'Female & "Native Hawaiian & Other Pacific Islander"'
    >>> group_label_text(1)
    '1'
    """
    if isinstance(label, tuple):
        return SEPARATOR.join(_quoted(part) for part in label)
    return str(label)


def parse_group_label(text):
    """The parts of a written label: the inverse of :func:`group_label_text`.

    Examples
    --------
    >>> from skfair.utils._labels import parse_group_label
    >>> parse_group_label('Female & "Native Hawaiian & Other Pacific Islander"')
    ('Female', 'Native Hawaiian & Other Pacific Islander')
    >>> parse_group_label("Male")
    ('Male',)
    """
    parts, i, n = [], 0, len(text)
    while True:
        if text.startswith('"', i):
            j, chars = i + 1, []
            while j < n:
                if text[j] == '"':
                    if text.startswith('""', j):
                        chars.append('"')
                        j += 2
                        continue
                    break
                chars.append(text[j])
                j += 1
            parts.append("".join(chars))
            i = j + 1
        else:
            j = text.find(SEPARATOR, i)
            j = n if j < 0 else j
            parts.append(text[i:j])
            i = j
        if i >= n:
            return tuple(parts)
        if not text.startswith(SEPARATOR, i):
            raise ValueError(f"Cannot read the group label {text!r}.")
        i += len(SEPARATOR)
