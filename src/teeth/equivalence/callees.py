"""A called function's own effects, from its body: which arguments it only reads, which only reach its result, and
whether its result is a new tensor nothing else holds; and the other way round, what the package does with a private
function or an attribute: every call that may run the function (`Callees.calls`), every value bound to an attribute
of that name (`Callees.attribute_values`), read from every file of the package that names it.

The callee is a plain function of the target's package (or the method an instance held in an attribute runs,
`held.py`): defined at the top of the mutated file, or of another file of the same package reached through
`from ... import` (relative or absolute, re-exports followed). Its effects are derived with the same analysis the
rules use on the mutated function (`Reads`), so a callee that hands a parameter to an unknown function, stores it,
writes it in place or lets a closure capture it does not only read it. Decorated functions, methods, `*args` and
anything not resolved statically are unknown callees. Each file read is recorded (path and digest), so a cached
discovery is redone when one changes.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
from dataclasses import dataclass
from pathlib import Path

import libcst as cst
from libcst.metadata import ImportAssignment, MetadataWrapper

from teeth.equivalence.effects import PERMUTING_ATTRIBUTES, autograd_function, dotted, relaid_base, storage_root
from teeth.equivalence.flow import Flow, own_nodes, uses, walk
from teeth.equivalence.held import binds_anywhere, binds_at_top, call_method, is_method, made_once_in_init, method_of, \
    source_file, torch_class
from teeth.equivalence.reads import DEPTH, Reads
from teeth.equivalence.tensors import checked_at_entry, is_tensor

HOPS = 6  # re-exports followed from an import to the definition
NESTING = 4  # callees analysed within callees
ROUNDS = 4  # assumptions tried for a function that calls itself


@dataclass(frozen=True)
class CalleeEffects:
    params: tuple[str, ...]  # the positional parameters, in order
    read: frozenset[str]  # only read: never written, stored, captured or returned
    returned: frozenset[str]  # only read, or reach the result (returned, or a view of them is)
    fresh: bool  # every return gives a new tensor that nothing else holds
    quiet: bool = False  # writes no tensor it did not make itself (`Reads.writes_only_own` of its body)
    tensor: bool = False  # every return gives a tensor (`is_tensor` of each returned value, in its own file)
    tensors: bool = False  # every return gives a tuple of tensors (a tuple literal, each element a tensor)
    checked: frozenset[str] = frozenset()  # parameters it raises for unless they are tensors (`checked_at_entry`)
    tensor_given: bool = False  # every return gives a tensor when each parameter without a default is one
    required: tuple[str, ...] = ()  # the parameters without a default (none starred)
    dense: bool = False  # every return gives a new tensor laid out densely from the start of its storage
    # (a torch call's new tensor, or one of its permutations, reshapes, casts: not a slice with gaps), as `.clone()`
    # of it lies too
    fresh_each: bool = False  # every return gives a tuple display of such new, dense tensors, no two sharing storage


def package_root(path: Path) -> Path | None:
    """The folder of the outermost package that holds `path` (folders with an `__init__.py`), or None."""
    folder, root = path.parent, None
    while (folder / "__init__.py").is_file():
        root, folder = folder, folder.parent
    return root


class Callees:
    """The callees one discovery can see: files of one package, parsed once, their functions' effects memoised."""

    def __init__(self, path: Path | None):
        self.root = package_root(Path(path).resolve()) if path is not None else None
        self.files: dict[str, str] = {}  # path -> sha256 of every other file read
        self._modules: dict[Path, tuple[Flow, Reads] | None] = {}
        self._effects: dict[int, CalleeEffects | None] = {}
        self._active: set[int] = set()
        self._assumed: dict[int, CalleeEffects] = {}  # a function being derived -> what its own calls are taken to do
        self._leaned: set[int] = set()  # those whose assumption answered a call while being derived
        self._cut = 0  # callees left unknown for recursion or depth: effects derived meanwhile are not memoised
        # (function, nesting depth, how many effects were kept) -> its effects derived there with callees cut off at
        # the limit: with no assumption leaned on, they depend on how deep it was derived and on the effects kept so
        # far (a callee kept since may be read in full), on nothing else: the same as deriving them again
        self._shallow: dict[tuple[int, int, int], CalleeEffects | None] = {}
        self._calls: dict[cst.Call, tuple[cst.FunctionDef, Reads, bool] | None] = {}  # a call -> what it calls
        self._callers: dict[int, list[tuple[Flow, cst.Call]] | None] = {}  # a private function -> its calls
        self.assuming = 0  # how many callee results are being derived with their parameters taken to be tensors
        self._attributes: dict[str, list | None] = {}  # an attribute's name -> what the package binds to it
        self._own: Path | None = None  # the mutated file
        self._texts: dict[Path, bytes] | None = None  # the package's files, when a private function's calls are asked
        self.flows: dict[int, Path] = {}

    def add(self, path: Path, flow: Flow, reads: Reads) -> None:
        """The mutated file itself: its own functions are callees too (never re-read from disk)."""
        self._modules[Path(path).resolve()] = (flow, reads)
        self._own = Path(path).resolve()
        self.flows[id(flow)] = Path(path).resolve()

    # -- resolving a call to a definition ------------------------------------------------------------------------

    def function(self, flow: Flow, call: cst.Call) -> tuple[cst.FunctionDef, Reads] | None:
        """The plain function `call` calls, with the analysis of its file; None when it cannot be told."""
        found = self._resolved(flow, call)
        return found[:2] if found is not None else None

    def _resolved(self, flow: Flow, call: cst.Call) -> tuple[cst.FunctionDef, Reads, bool] | None:
        """`function`'s answer and whether the call binds the callee's first parameter (a method of an instance held
        in an attribute, `self.NAME(...)`, resolved by `held`; a function of a module, `mod.NAME(...)`, binds none);
        worked out once per call."""
        if call not in self._calls:  # keyed by the node itself (nodes compare by identity), kept alive while cached
            bound, found = False, None
            if isinstance(call.func, cst.Attribute):
                found = self.of_module(flow, call)
                if found is None:
                    bound, found = True, self.applied(flow, call) or self.held(flow, call)
            else:
                found = self._named(flow, call)
            self._calls[call] = (*found, bound) if found is not None else None
        return self._calls[call]

    def _named(self, flow: Flow, call: cst.Call) -> tuple[cst.FunctionDef, Reads] | None:
        if not isinstance(call.func, cst.Name):
            return None
        scope = flow.scopes.get(call.func)
        if scope is None:
            return None
        found = list(scope[call.func.value])
        if len(found) != 1:
            return None
        module, node = self.flows.get(id(flow)), getattr(found[0], "node", None)  # a builtin has no node
        return self._definition(module, node, call.func.value, HOPS) if module and node is not None else None

    def of_module(self, flow: Flow, call: cst.Call) -> tuple[cst.FunctionDef, Reads] | None:
        """`mod.NAME(...)` with `mod` bound by one import to a module file of the package (`from pkg.utils import
        sparse`, `from . import sparse`, `import pkg.utils.sparse as sparse`): the plain function NAME at that file's
        top (re-exports followed), or None."""
        func = call.func
        if not isinstance(func, cst.Attribute) or not isinstance(func.value, cst.Name) or self.root is None:
            return None
        scope = flow.scopes.get(func.value)
        found = list(scope[func.value.value]) if scope is not None else []
        module = self.flows.get(id(flow))
        if len(found) != 1 or not isinstance(found[0], ImportAssignment) or module is None:
            return None
        target = self._module_bound(module, found[0].node, func.value.value)
        if target is None or self._load(target) is None:
            return None
        return self._top_level(target, func.attr.value, HOPS)

    def _module_bound(self, module: Path, node: cst.CSTNode, name: str) -> Path | None:
        """The file of the package's module an import binds `name` to, or None (not a module of the package)."""
        if isinstance(node, cst.ImportFrom) and not isinstance(node.names, cst.ImportStar):
            alias = next((a for a in node.names if (a.asname.name.value if a.asname else dotted(a.name)) == name),
                         None)
            package = self._module_file(module, node)
            if alias is None or package is None or package.name != "__init__.py" or self._load(package) is None:
                return None  # `from pkg.mod import name`: an attribute of a module, not a module
            imported = dotted(alias.name) or ""
            init = self._modules[package][0].module
            if any(binds_at_top(s, imported) and not _imports_only(s) for s in init.body):
                return None  # the package binds that name itself: a function, not the submodule
            return self._in_package(package.parent, imported.split("."))
        if isinstance(node, cst.Import):
            alias = next((a for a in node.names if a.asname is not None and a.asname.name.value == name), None)
            parts = (dotted(alias.name) or "").split(".") if alias is not None else []
            if not parts or parts[0] != self.root.name:
                return None  # `import a.b` binds `a`, not the module; or another package
            return self._in_package(self.root, parts[1:])
        return None

    def _in_package(self, folder: Path, parts: list[str]) -> Path | None:
        """The file of module `parts` under `folder` (`a/b.py` or `a/b/__init__.py`; the folder's own `__init__.py`
        when `parts` is empty), if it lies in the package."""
        base = folder.joinpath(*parts)
        for candidate in ((base.with_suffix(".py") if parts else None), base / "__init__.py"):
            if candidate is not None and candidate.is_file():
                resolved = candidate.resolve()
                return resolved if self.root in resolved.parents else None
        return None

    def held(self, flow: Flow, call: cst.Call) -> tuple[cst.FunctionDef, Reads] | None:
        """`self.NAME(...)` in a method of a class whose `__init__` binds `self.NAME = Cls(...)`, the only binding of
        that attribute in the class (nor a method or class attribute of that name), with `Cls` a class of the package
        deriving from `nn.Module` alone with its own `forward`, or from nothing with its own `__call__`: that method,
        its first parameter (the instance) left out of the call's arguments. Anything else is unknown (a callee
        passed in by the caller, `self.loss = loss`, is whatever the caller passes)."""
        func = call.func
        if not isinstance(func.value, cst.Name):
            return None
        owner = method_of(flow, call, func.value.value)
        if owner is None:
            return None
        method, cls = owner
        made = made_once_in_init(flow, cls, func.attr.value)
        if made is None:
            return None
        torch_class = self._torch_module(flow, made.func)
        if torch_class is not None:
            return torch_class
        resolved = self._class(flow, made.func)
        if resolved is None:
            return None
        klass, reads = resolved
        called = call_method(klass)
        return (called, reads) if called is not None else None

    def applied(self, flow: Flow, call: cst.Call) -> tuple[cst.FunctionDef, Reads] | None:
        """`Cls.apply(...)` with `Cls` a class of the package deriving from `torch.autograd.Function` alone (no
        metaclass, no `apply` or `setup_context` of its own): its `forward`, a static method whose first parameter,
        the context, the call leaves out (`apply` runs `forward(ctx, *args)` and hands back what it returns). What
        `forward` keeps in the context (`ctx.save_for_backward(x)`, `ctx.x = x`) is stored, as anywhere else."""
        func = call.func
        resolved = self._class(flow, func.value) if func.attr.value == "apply" else None
        if resolved is None or not autograd_function(resolved[0], resolved[1].flow):
            return None
        klass, reads = resolved
        members = [s for s in klass.body.body if isinstance(s, cst.FunctionDef) or binds_at_top(s, "apply") or
                   binds_at_top(s, "forward")]
        if any(m.name.value in ("apply", "setup_context") if isinstance(m, cst.FunctionDef) else True
               for m in members):
            return None
        forward = [m for m in members if m.name.value == "forward"]
        if len(forward) != 1 or forward[0].asynchronous is not None or len(forward[0].decorators) != 1 or \
                not isinstance(forward[0].decorators[0].decorator, cst.Name) or \
                forward[0].decorators[0].decorator.value != "staticmethod" or \
                reads.flow.bound(forward[0].decorators[0].decorator):
            return None
        return forward[0], reads

    def _class(self, flow: Flow, name: cst.BaseExpression) -> tuple[cst.ClassDef, Reads] | None:
        """The class of the package a bare name is bound to by its one binding (defined in the file, or imported from
        another file of the package), with the analysis of its file; None otherwise."""
        if not isinstance(name, cst.Name):
            return None
        module = self.flows.get(id(flow))
        scope = flow.scopes.get(name)
        found = list(scope[name.value]) if scope is not None else []
        node = getattr(found[0], "node", None) if len(found) == 1 else None
        if module is None or node is None:
            return None
        return self._definition(module, node, name.value, HOPS, want=cst.ClassDef)

    def _torch_module(self, flow: Flow, func: cst.BaseExpression) -> tuple[cst.FunctionDef, Reads] | None:
        """`Cls` of `self.NAME = Cls(...)` when the file binds it to a module class of torch (`nn.Linear`,
        `torch.nn.GELU`, `from torch.nn import Linear`): that class's own `forward`, read from torch's source file like
        a function of the package (`F.linear(input, self.weight, self.bias)`: reads its input, returns a new tensor).
        A class without its own `forward` there, or whose file cannot be read, is unknown."""
        qualified = flow.qualified(func)
        if qualified is None or not qualified.startswith("torch."):
            return None
        klass = torch_class(qualified)
        path = source_file(klass) if klass is not None else None
        if path is None or self._load(path) is None:
            return None
        found = self._top_level(path, klass.__name__, HOPS, want=cst.ClassDef)
        if found is None:
            return None
        called = call_method(found[0])
        return (called, found[1]) if called is not None and called.name.value == "forward" else None

    def _definition(self, module: Path, node: cst.CSTNode, name: str, hops: int, want=cst.FunctionDef):
        loaded = self._modules.get(module)
        if loaded is None or hops <= 0:
            return None
        flow, reads = loaded
        if want is cst.ClassDef:
            if isinstance(node, cst.ClassDef):
                return (node, reads) if not node.decorators and isinstance(flow.parent(node), cst.Module) else None
        elif isinstance(node, cst.FunctionDef):
            if not transparent(flow, node) or not (isinstance(flow.parent(node), cst.Module) or _nested(flow, node)) or \
                    node.asynchronous is not None:
                return None  # a function at the top of its file, or one defined in another function's body
            return node, reads
        if isinstance(node, cst.ImportFrom) and not isinstance(node.names, cst.ImportStar):
            alias = next((a for a in node.names if (a.asname.name.value if a.asname else
                                                    (dotted(a.name) or "")) == name), None)
            if alias is None:
                return None
            target = self._module_file(module, node)
            if target is None or self._load(target) is None:
                return None
            return self._top_level(target, dotted(alias.name) or "", hops - 1, want)
        return None

    def _top_level(self, module: Path, name: str, hops: int, want=cst.FunctionDef):
        flow, _ = self._modules[module]
        bound = [s for s in flow.module.body if binds_at_top(s, name)]
        if len(bound) != 1:
            return None  # not defined here, or defined twice (a try/except import, a redefinition)
        statement = bound[0]
        if isinstance(statement, cst.SimpleStatementLine):
            smalls = [s for s in statement.body if binds_anywhere(s, name)]
            node = smalls[0] if len(smalls) == 1 else None
        else:
            node = statement  # a function or a class; anything else (a compound statement) is neither
        return self._definition(module, node, name, hops, want) if node is not None else None

    def _module_file(self, module: Path, node: cst.ImportFrom) -> Path | None:
        if self.root is None:
            return None
        name = (dotted(node.module) or "") if node.module is not None else ""
        if node.relative:
            folder = module.parent
            for _ in range(len(node.relative) - 1):
                folder = folder.parent
            parts = [p for p in name.split(".") if p]
        else:
            parts = name.split(".")
            if parts[0] != self.root.name:
                return None  # another package: its code is not the target's
            folder, parts = self.root, parts[1:]
        return self._in_package(folder, parts)

    def _load(self, path: Path):
        if path not in self._modules:
            self._modules[path] = None
            parsed = _parse(path) if self.root is None or self.root not in path.parents else _parse.__wrapped__(path)
            if parsed is None:
                return None
            flow, self.files[str(path)] = parsed
            if self.root is not None and self.root in path.parents:
                flow.callees = self  # parsed afresh for this discovery (torch's own files are shared: none)
            reads = Reads(flow, self)
            self._modules[path] = (flow, reads)
            self.flows[id(flow)] = path
        return self._modules[path]

    # -- who calls a definition ----------------------------------------------------------------------------------

    def calls(self, flow: Flow, function: cst.FunctionDef) -> list[tuple[Flow, cst.Call]] | None:
        """Every call in the package that may run `function`, a private one (`_name`, not a dunder, undecorated):
        a plain function at the top of `flow`'s file, or a method of a class there. Each file of the package that
        mentions the name is read, and every use of the name must be a definition, a plain `from ... import _name`
        or a call: of a function, one that resolves to this very function (another definition of the name is
        unknown); of a method, any `obj._name(...)` (whatever the object, so every call that may reach it is among
        them; a subclass's override only takes calls away). Anything else (passed as a value, an attribute read
        without a call, the name in a string, `getattr`'s) is None: callers unknown. The tests, which may call a
        private function too, are not read. A function defined in another function's body (undecorated, whatever
        its name) is run only by the calls of its name there, when its name is bound by that definition alone and
        every use of it is a call."""
        key = id(function)
        if key in self._callers:
            return self._callers[key]
        self._callers[key] = None  # while asked: a cycle of questions answers unknown
        name = function.name.value
        found = None
        if _nested(flow, function):
            found = _local_calls(flow, function)
        elif name.startswith("_") and not name.endswith("__") and not function.decorators and \
                self.flows.get(id(flow)) is not None and is_method(flow, function) is not None:
            found = self._calls_by_name(function, name, is_method(flow, function))
        self._callers[key] = found
        return found

    def attribute_values(self, name: str) -> list[tuple[Flow, cst.BaseExpression]] | None:
        """Every value the package binds to an attribute `name` of any object: `obj.name = value` (one target),
        `obj.name: T = value`, `obj.register_buffer("name", value)` / `register_parameter`. None when one use
        cannot be told (an augmented assignment or `del` of it, a tuple target, the name in another string,
        `setattr`'s, a method, a class attribute or anything else bound to the name in a class body): unknown.
        Code outside the package (the tests, a user) that sets it is not read."""
        if name in self._attributes:
            return self._attributes[name]
        self._attributes[name] = None
        texts = self._package_texts()
        found: list | None = [] if texts is not None else None
        for path, text in (texts or {}).items():
            if found is None:
                break
            if name.encode() not in text:
                continue
            loaded = self._modules.get(path) or self._load(path)
            if loaded is None:
                found = None
                break
            found = _attribute_values(loaded[0], name, found)
        self._attributes[name] = found
        return found

    def reads_of(self, flow: Flow) -> Reads | None:
        """The analysis of the file `flow` is of (one this discovery read)."""
        loaded = self._modules.get(self.flows.get(id(flow)))
        return loaded[1] if loaded is not None else None

    def _package_texts(self) -> dict[Path, bytes] | None:
        """Every file of the package, read once; each recorded (a new call of a private function redoes a cached
        discovery). None when one cannot be read."""
        if self._texts is None:
            texts = {}
            files = sorted(self.root.rglob("*.py")) if self.root is not None else \
                [self._own]  # a lone module: its own file is all its code
            for path in files:
                try:
                    texts[path.resolve()] = text = path.read_bytes()
                except OSError:
                    return None
                self.files.setdefault(str(path.resolve()), hashlib.sha256(text).hexdigest())
            self._texts = texts
        return self._texts

    def _calls_by_name(self, function: cst.FunctionDef, name: str, method: bool) -> list[tuple[Flow, cst.Call]] | None:
        found = []
        texts = self._package_texts()
        if texts is None:
            return None
        for path, text in texts.items():
            if name.encode() not in text:
                continue
            loaded = self._modules.get(path) or self._load(path)
            if loaded is None:
                return None
            other = loaded[0]
            for node in walk(other.module):
                if isinstance(node, cst.SimpleString) and node.evaluated_value == name:
                    return None  # `getattr(obj, "_name")`, `__all__`: used by its name
                if not isinstance(node, cst.Name) or node.value != name:
                    continue
                parent = other.parent(node)
                if isinstance(parent, cst.FunctionDef) and parent.name is node:
                    if parent is not function and not method:
                        return None  # another function of the name: which one a call runs is not followed
                elif not method and isinstance(parent, cst.ImportAlias) and parent.name is node and \
                        parent.asname is None:
                    continue
                elif not method and isinstance(parent, cst.Call) and parent.func is node:
                    resolved = self._resolved(other, parent)
                    if resolved is None or resolved[0] is not function:
                        return None
                    found.append((other, parent))
                elif method and isinstance(parent, cst.Attribute) and parent.attr is node and \
                        isinstance(other.parent(parent), cst.Call) and other.parent(parent).func is parent:
                    found.append((other, other.parent(parent)))
                else:
                    return None
        return found

    # -- what a definition does to its arguments -----------------------------------------------------------------

    def effects(self, flow: Flow, call: cst.Call) -> CalleeEffects | None:
        found = self._resolved(flow, call)
        if found is None:
            return None
        function, reads, bound = found
        found = self._function_effects(function, reads)
        if found is None or not bound:
            return found
        if not found.params:
            return None
        return dataclasses.replace(found, params=found.params[1:],
                                   required=tuple(r for r in found.required if r != found.params[0]))

    def _function_effects(self, function: cst.FunctionDef, reads: Reads) -> CalleeEffects | None:
        """A function's effects, derived from its body. A call of a function whose effects are being derived (it
        calls itself, directly or through others) is answered by an assumption, first the strongest (`_optimistic`),
        then what the body gave under it, met with it, until the body gives at least what was assumed: each property
        then holds by induction on the depth of the calls (every one the assumption answered is a call one level
        deeper; a write, a store, a result kept by someone else happens at some finite depth, and there the body
        itself does it). Whether each parameter is checked to be a tensor is assumed of none."""
        key = id(function)
        if key in self._effects:
            return self._effects[key]
        level = (key, len(self._active), len(self._effects))
        if level in self._shallow:
            return self._shallow[level]
        if key in self._active:
            if key in self._assumed:
                self._leaned.add(key)  # what is derived meanwhile holds only under the assumption: not memoised
                return self._assumed[key]
            return None
        if len(self._active) >= NESTING:
            self._cut += 1
            return None  # too deep: unknown
        self._active.add(key)
        cut = self._cut
        assumed = self._assumed[key] = _optimistic(function)
        try:
            for _ in range(ROUNDS):
                self._leaned.discard(key)
                found = _derive(function, reads)
                if key not in self._leaned or _holds(found, assumed):
                    break
                assumed = self._assumed[key] = _meet(assumed, found)
            else:
                found = None  # no assumption the body keeps within the rounds: unknown
        finally:
            self._active.discard(key)
            self._assumed.pop(key, None)
            self._leaned.discard(key)
        if self._cut == cut and not self.assuming and not self._leaned & self._active:
            self._effects[key] = found  # kept only when no callee was cut off nor assumed: the same from any caller
        elif not self.assuming and not self._leaned & self._active:
            self._shallow[(key, level[1], len(self._effects))] = found  # callees cut off at the nesting limit
        return found

    def parameter(self, flow: Flow, call: cst.Call, arg: cst.Arg, effects: CalleeEffects) -> str | None:
        """The parameter `arg` of `call` is bound to; None for a starred argument, or one after it."""
        if arg.star:
            return None
        if arg.keyword is not None:
            return arg.keyword.value
        before = list(call.args)[:list(call.args).index(arg)]
        if any(a.star or a.keyword is not None for a in before):
            return None
        return effects.params[len(before)] if len(before) < len(effects.params) else None


@functools.lru_cache(maxsize=64)
def _parse(path: Path) -> tuple[Flow, str] | None:
    """A file's analysis and digest. Files outside the target's package (torch's own modules) are parsed once per
    process, shared by every discovery that reads them; the package's own are parsed afresh (`__wrapped__`)."""
    try:
        text = path.read_bytes()
        wrapper = MetadataWrapper(cst.parse_module(text))
    except (OSError, cst.ParserSyntaxError, UnicodeDecodeError, RecursionError):
        return None
    return Flow(wrapper), hashlib.sha256(text).hexdigest()


def _derive(function: cst.FunctionDef, reads: Reads) -> CalleeEffects:
    flow = reads.flow
    params = function.params
    positional = tuple(p.name.value for p in (*params.posonly_params, *params.params))
    named = [p.name for p in (*params.posonly_params, *params.params, *params.kwonly_params)]
    read, returned = set(), set()
    for name in named:
        if reads.name_only_read(name, set(), set(), DEPTH):
            read.add(name.value)
        result = Reads(flow, reads.callees, returns_of=function)
        if result.name_only_read(name, set(), set(), DEPTH):
            returned.add(name.value)
    returns = [n for n in own_nodes(function.body) if isinstance(n, cst.Return)]
    plain = bool(returns) and all(r.value is not None for r in returns) and \
        not any(isinstance(n, (cst.Yield, cst.Await)) for n in own_nodes(function.body))  # each call returns a value
    fresh = plain and all(_fresh_return(reads, r) for r in returns)
    dense = fresh and all(dense_value(reads, r.value) for r in returns)
    fresh_each = plain and all(isinstance(r.value, cst.Tuple) and r.value.elements and all(
        not isinstance(e, cst.StarredElement) and _fresh_return(reads, r, e.value) and dense_value(reads, e.value)
        for e in r.value.elements) for r in returns)
    quiet = reads.writes_only_own(function.body)
    tensor = plain and all(is_tensor(r.value, flow) for r in returns)
    tensors = plain and all(isinstance(r.value, cst.Tuple) and r.value.elements and
                            all(not isinstance(e, cst.StarredElement) and is_tensor(e.value, flow)
                                for e in r.value.elements) for r in returns)
    checked = frozenset(name.value for name in named if checked_at_entry(function, name.value, flow))
    required = [p for p in (*params.posonly_params, *params.params, *params.kwonly_params) if p.default is None]
    tensor_given = tensor
    if plain and not tensor and required:
        flow.assumed, before = frozenset(id(p) for p in required), flow.assumed
        reads.callees.assuming += 1  # what is derived meanwhile holds only under the assumption: not memoised
        try:
            tensor_given = all(is_tensor(r.value, flow) for r in returns)
        finally:
            flow.assumed = before
            reads.callees.assuming -= 1
    return CalleeEffects(positional, frozenset(read), frozenset(returned), fresh, quiet, tensor, tensors, checked,
                         tensor_given, tuple(p.name.value for p in required), dense, fresh_each)


def _optimistic(function: cst.FunctionDef) -> CalleeEffects:
    """The strongest effects a function can have: every parameter only read, every result new (and a tensor)."""
    params = function.params
    positional = tuple(p.name.value for p in (*params.posonly_params, *params.params))
    names = frozenset(p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params))
    required = tuple(p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)
                     if p.default is None)
    return CalleeEffects(positional, names, names, True, True, True, True, frozenset(), True, required, True, True)


_FLAGS = ("fresh", "quiet", "tensor", "tensors", "tensor_given", "dense", "fresh_each")


def _holds(found: CalleeEffects, assumed: CalleeEffects) -> bool:
    """Does `found` give at least what `assumed` does (each parameter set a superset, each flag kept)?"""
    return found.read >= assumed.read and found.returned >= assumed.returned and \
        all(getattr(found, f) or not getattr(assumed, f) for f in _FLAGS)


def _meet(assumed: CalleeEffects, found: CalleeEffects) -> CalleeEffects:
    return dataclasses.replace(assumed, read=assumed.read & found.read, returned=assumed.returned & found.returned,
                               **{f: getattr(assumed, f) and getattr(found, f) for f in _FLAGS})


def dense_value(reads: Reads, value: cst.BaseExpression, depth: int = DEPTH) -> bool:
    """Is `value`, known new, laid out densely from the start of its storage (so `.clone()` of it lies alike)? A
    call of torch that makes a tensor, a call of a package function whose every return is (`CalleeEffects.dense`),
    or a permutation, reshape or cast of one (their row keeps contiguity: of a dense tensor they are dense), followed
    through the binding of a name that reaches it; a slice is not (it may leave gaps or start later)."""
    flow, node = reads.flow, value
    for _ in range(depth):
        if reads.callees is not None and isinstance(node, cst.Call) and reads.callees.function(flow, node) is not None:
            effects = reads.callees.effects(flow, node)
            return effects is not None and effects.dense
        if reads.fresh(node):
            return True
        if isinstance(node, cst.Attribute) and node.attr.value in PERMUTING_ATTRIBUTES:
            node = node.value
            continue
        if isinstance(node, cst.Name):
            reaching = flow.reaching(node)
            if reaching is None or reaching.value is None:
                return False
            node = reaching.value
            continue
        node = relaid_base(node, flow)
        if node is None:
            return False
    return False


def _fresh_return(reads: Reads, statement: cst.Return, value: cst.BaseExpression | None = None) -> bool:
    """Is the returned value (or `value`, an element of the returned tuple) a new tensor nothing else holds: made
    fresh there, or a view of a local made fresh that nothing else names (`Reads.sole_before`; another element naming
    the same local is no mere read, so `return y, y` is not)?"""
    value = statement.value if value is None else value
    if reads.fresh(value):
        return True
    root = storage_root(value, flow=reads.flow)
    if isinstance(root, cst.Name):
        return reads.sole_before(root.value, statement, value, DEPTH)
    return not isinstance(root, cst.Name) and root is not value and reads.fresh(root)


_REGISTERS = {"register_buffer": "tensor", "register_parameter": "param"}


def _attribute_values(flow: Flow, name: str, found: list) -> list | None:
    """`Callees.attribute_values` of one file, added to `found`; None when a use cannot be told."""
    for node in walk(flow.module):
        if isinstance(node, cst.SimpleString):
            if node.evaluated_value != name:
                continue
            arg = flow.parent(node)
            call = flow.parent(arg) if isinstance(arg, cst.Arg) else None
            if not isinstance(call, cst.Call) or not isinstance(call.func, cst.Attribute) or \
                    call.func.attr.value not in _REGISTERS or call.args[0] is not arg or arg.keyword is not None:
                return None  # `setattr(obj, "name", v)`, `__slots__`, ...: not followed
            values = [a.value for a in call.args[1:2] if a.keyword is None and not a.star] + \
                [a.value for a in call.args if a.keyword is not None and a.keyword.value == _REGISTERS[call.func.attr.value]]
            if len(values) != 1:
                return None
            found.append((flow, values[0]))
            continue
        if not isinstance(node, cst.Name) or node.value != name:
            continue
        parent = flow.parent(node)
        if isinstance(parent, cst.Attribute) and parent.attr is node:
            holder = flow.parent(parent)
            if isinstance(holder, cst.AssignTarget) and holder.target is parent:
                assign = flow.parent(holder)
                if len(assign.targets) != 1:
                    return None
                found.append((flow, assign.value))
            elif isinstance(holder, cst.AnnAssign) and holder.target is parent:
                if holder.value is not None:
                    found.append((flow, holder.value))
            elif isinstance(holder, (cst.AugAssign, cst.Del, cst.Element, cst.StarredElement, cst.For,
                                     cst.CompFor, cst.WithItem, cst.AsName)) or flow.assigned_to(parent) is not None:
                return None  # written in place, deleted, or bound by unpacking or a loop: not followed
            continue
        if isinstance(parent, (cst.FunctionDef, cst.ClassDef)) and parent.name is node:
            return None  # a method (maybe a property) of that name
        if _in_class_body(flow, node):
            return None  # a class attribute: what an instance without its own reads
    return found


def _in_class_body(flow: Flow, node: cst.CSTNode) -> bool:
    """Is `node` in a class's own body (not inside a method)?"""
    parent = flow.parent(node)
    while parent is not None and not isinstance(parent, (cst.FunctionDef, cst.Lambda)):
        if isinstance(parent, cst.ClassDef):
            return True
        parent = flow.parent(parent)
    return False


def _imports_only(statement: cst.CSTNode) -> bool:
    """Is `statement` a line of imports only (`from . import sparse`)?"""
    return isinstance(statement, cst.SimpleStatementLine) and \
        all(isinstance(small, (cst.Import, cst.ImportFrom)) for small in statement.body)


# Decorators of torch that run the function's own body as it is written: TorchScript compiles it (the same operators,
# the same aliasing; with `PYTORCH_JIT=0` it is the function itself).
TRANSPARENT = frozenset({"torch.jit.script", "torch.jit.script_if_tracing"})


def transparent(flow: Flow, function: cst.FunctionDef) -> bool:
    """Is `function` undecorated, or decorated only by torch's decorators that run its body as written (`TRANSPARENT`,
    bound by the file's imports: `@torch.jit.script`)? Anything else may wrap it in code that does what it likes."""
    return all(flow.qualified(d.decorator) in TRANSPARENT for d in function.decorators)


def _nested(flow: Flow, function: cst.FunctionDef) -> bool:
    """Is `function` defined in the body of another function (not of a class)?"""
    block = flow.parent(function)
    return isinstance(block, cst.IndentedBlock) and isinstance(flow.parent(block), cst.FunctionDef)


def _local_calls(flow: Flow, function: cst.FunctionDef) -> list[tuple[Flow, cst.Call]] | None:
    """The calls of a nested function, by its name in the enclosing function: None when the name is bound otherwise
    too (another `def`, an assignment, `nonlocal`) or used other than called (handed on, returned, read)."""
    if function.decorators:
        return None
    scope = flow.scopes.get(function)
    name = function.name.value
    if scope is None or [a.node for a in scope.assignments[name]] != [function]:
        return None
    found = []
    for use in uses(scope, name, flow):
        call = flow.parent(use.node)
        if not isinstance(call, cst.Call) or call.func is not use.node:
            return None
        found.append((flow, call))
    return found


__all__ = ["CalleeEffects", "Callees", "package_root"]
