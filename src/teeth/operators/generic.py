"""Generic mutations (arithmetic, comparison, constants, ...) from mutmut's operator library."""

from __future__ import annotations

import libcst as cst

from teeth.core import Check
from mutmut.mutation.mutators import mutation_operators

from teeth.operators.base import Example, Operator

# Before/after pairs for each of mutmut's node operators that teeth exposes.
_EXAMPLES: dict[str, list[Example]] = {
    "number": [Example("k = rows // 2", ("k = rows // 3",))],
    "string": [Example("mode = 'rows'", ("mode = 'XXrowsXX'", "mode = 'ROWS'"))],
    "name": [Example("flag = True", ("flag = False",))],
    "assignment": [Example("k = rows // total", ("k = None",))],
    "augmented_assignment": [Example("start += size", ("start = size",))],
    "remove_unary_ops": [Example("ok = not scoped", ("ok = scoped",))],
    "dict_arguments": [Example("d = dict(a=1)", ("d = dict(aXX=1)",))],
    "arg_removal": [Example("y = f(a, b)", ("y = f(None, b)", "y = f(a, None)", "y = f(b)", "y = f(a, )"))],
    "symmetric_string_methods_swap": [Example("s = name.lower()", ("s = name.upper()",))],
    "unsymmetrical_string_methods_swap": [Example("p = s.split('.', 1)", ("p = s.rsplit('.', 1)",))],
    "lambda": [Example("f = lambda x: x", ("f = lambda x: None",))],
    "keywords": [Example("ok = a is None", ("ok = a is not None",))],
    "swap_op": [Example("stop = start + size", ("stop = start - size",))],
    "match": [Example("match k:\n    case 1:\n        pass\n    case 2:\n        pass",
                      ("match k:\n    case 2:\n        pass", "match k:\n    case 1:\n        pass"))],
    "if_exp": [Example("k = a if c else b", ("k = a if (c) and False else b", "k = a if (c) or True else b"))],
}


class GenericOperator(Operator):
    """One of mutmut's node operators, adapted to teeth's operator interface."""

    domain = False
    kills = (Check.BEHAVIOUR,)

    def __init__(self, node_types: tuple[type[cst.CSTNode], ...], function):
        short = function.__name__.removeprefix("operator_")
        self.name = f"generic.{short}"
        self.summary = (function.__doc__ or f"mutmut's {function.__name__}").strip().splitlines()[0]
        self.bug = f"A generic mutation from mutmut's library ({function.__module__}.{function.__name__})."
        self.node_types = node_types
        self._function = function
        self._short = short

    def mutate(self, node, ctx):
        yield from self._function(node)

    def examples(self):
        return _EXAMPLES.get(self._short, [])


def generic_operators() -> list[GenericOperator]:
    """One teeth operator per mutmut function (mutmut lists Assign and AnnAssign separately)."""
    types_by_function: dict = {}
    for node_type, function in mutation_operators:
        types_by_function.setdefault(function, []).append(node_type)
    return [GenericOperator(tuple(types), function) for function, types in types_by_function.items()]
