"""The ``skfair`` command line: one module per subcommand.

Each subcommand module (``_audit``, ``_compare``) exposes ``HELP`` (its
line in ``skfair --help``), ``DESCRIPTION`` (the text of ``skfair <name>
--help``), ``add_arguments(parser)`` (adds its arguments to its subparser)
and ``run(args, parser)`` (runs the parsed command and returns the exit status;
``parser`` is the subcommand's parser, for argument errors found after
parsing). Registering a subcommand is one entry in
:data:`SUBCOMMANDS` and one in :func:`_subcommand_modules`; the argument
types they share are in ``_types``.
"""

from __future__ import annotations

import argparse

#: The subcommands, in the order of ``skfair --help``.
SUBCOMMANDS = ("compare", "audit")


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line (and exit status 2)."""

    def error(self, message):
        from skfair._cli._feedback import close_bars

        close_bars()  # a progress bar would share the error's line
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def _subcommand_modules():
    """The module of each subcommand (imported when the parser is built)."""
    from skfair._cli import _audit, _compare

    return {"compare": _compare, "audit": _audit}


def build_parser():
    """Build the ``skfair`` argument parser with every subcommand.

    Returns
    -------
    parser : argparse.ArgumentParser

    Examples
    --------
    >>> args = build_parser().parse_args(["compare", "--dataset", "credit"])
    >>> args.command, args.dataset, args.cv, args.format, args.seed
    ('compare', 'german_credit', 5, 'markdown', 0)
    """
    from skfair import __version__

    parser = _Parser(
        prog="skfair", description="skfair: measuring and improving group fairness."
    )
    parser.add_argument("--version", action="version", version=__version__)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.required = True
    modules = _subcommand_modules()
    for name in SUBCOMMANDS:
        module = modules[name]
        sub = commands.add_parser(
            name,
            help=module.HELP,
            description=module.DESCRIPTION,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        module.add_arguments(sub)
        sub.set_defaults(_run=module.run, _parser=sub)
    return parser


def main(argv=None):
    """Run the ``skfair`` command line.

    Parameters
    ----------
    argv : list of str or None, default=None
        The arguments (without the program name); None reads ``sys.argv``.

    Returns
    -------
    status : int
        0 on success; argument errors exit with status 2 and a one-line
        message, before any work.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "ricci.csv")
    >>> main(["compare", "--dataset", "ricci", "--cv", "2", "--format", "csv",
    ...       "--output", path])
    0
    >>> with open(path) as handle:
    ...     print(handle.readline().strip())
    # HFM paper comparison on ricci: n = 118 samples, 6 encoded features
    """
    args = build_parser().parse_args(argv)
    return args._run(args, args._parser)
