"""Dump every public name of skfair with its signature (and its public methods').

``python tests/_api_snapshot.py > tests/public_api.txt`` writes the snapshot that
``tests/test_public_api.py`` compares against: a name may be added, never
removed or changed.
"""

import importlib
import inspect

MODULES = [
    "skfair",
    "skfair.metrics",
    "skfair.metrics.inference",
    "skfair.model_selection",
    "skfair.postprocessing",
    "skfair.ensemble",
    "skfair.inprocessing",
    "skfair.datasets",
    "skfair.plotting",
    "skfair.report",
    "skfair.utils",
]


def _signature(obj):
    try:
        return str(inspect.signature(obj))
    except (TypeError, ValueError):
        return "<no signature>"


def public_api():
    """Lines ``module.name: signature`` for every public name and method."""
    lines = []
    for module_name in MODULES:
        module = importlib.import_module(module_name)
        names = getattr(module, "__all__", None)
        if names is None:
            names = [n for n in vars(module) if not n.startswith("_")]
        for name in sorted(names):
            obj = getattr(module, name)
            if inspect.ismodule(obj):
                continue
            if inspect.isclass(obj):
                lines.append(f"{module_name}.{name}: class{_signature(obj)}")
                for attr, member in sorted(vars(obj).items()):
                    if attr.startswith("_"):
                        continue
                    if isinstance(member, (staticmethod, classmethod)):
                        member = member.__func__
                    if callable(member):
                        lines.append(
                            f"{module_name}.{name}.{attr}: {_signature(member)}"
                        )
                    elif isinstance(member, property):
                        lines.append(f"{module_name}.{name}.{attr}: property")
            elif callable(obj):
                lines.append(f"{module_name}.{name}: {_signature(obj)}")
            else:
                lines.append(f"{module_name}.{name}: {type(obj).__name__}")
    return lines


if __name__ == "__main__":
    print("\n".join(public_api()))
