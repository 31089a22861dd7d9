"""A compiled formula shape's functions called one after another, without schedula's dispatcher around them.

schedula's dispatcher costs ~0.2 ms a call, most of a simple formula's time (`shapes.compile_shape`
keeps both: `Compiled.steps` where it is plain, `Compiled.func` for the rest).
"""

from __future__ import annotations

from typing import Any

import schedula as sh


class StepFailed(Exception):
    """A step raised or gave no value: the dispatcher (`Compiled.func`) decides what that means."""


class Steps:
    """A compiled shape's functions, called one after another in the order the parser built them.

    schedula's dispatcher costs ~0.2 ms a call, most of a simple formula's time; these are the
    very function objects it would call, on the same values, so results are the same. Anything
    the dispatcher does beyond calling them in order (input domains, sub-dispatchers, a step that
    raises or returns no value) is left to it: `of` returns None, or a call raises `StepFailed`.
    """

    _FUNCTION_KEYS = frozenset({"type", "function", "inputs", "outputs", "wait_inputs", "index"})
    _DATA_KEYS = frozenset({"type", "wait_inputs", "index", "filters"})

    def __init__(self, inputs: list[str], constants: dict[str, Any], calls: list[tuple[Any, list[str], str]],
                 output: str, filters: tuple):
        self.inputs, self.constants, self.calls, self.output, self.filters = inputs, constants, calls, output, filters

    @classmethod
    def of(cls, func: Any) -> Steps | None:
        nodes = func.dsp.nodes
        calls = []
        for node in sorted(nodes.values(), key=lambda node: node.get("index", ())):
            kind = node.get("type")
            if kind == "function" and set(node) <= cls._FUNCTION_KEYS and len(node["outputs"]) == 1:
                calls.append((node["function"], list(node["inputs"]), node["outputs"][0]))
            elif kind != "data" or not set(node) <= cls._DATA_KEYS:
                return None
        if len(func.outputs) != 1:
            return None
        constants = {k: v["value"] for k, v in func.dsp.default_values.items()}
        output = func.outputs[0]
        return cls(list(func.inputs), constants, calls, output, tuple(nodes[output].get("filters", ())))

    def __call__(self, *args: Any) -> Any:
        values = dict(self.constants)
        values.update(zip(self.inputs, args, strict=True))
        try:
            for function, inputs, output in self.calls:
                got = function(*[values[i] for i in inputs])
                if got is sh.NONE:
                    raise StepFailed
                values[output] = got
            out = values[self.output]
            for keep in self.filters:
                out = keep(out)
        except StepFailed:
            raise
        except Exception as exc:  # noqa: BLE001  what a raising step means is the dispatcher's to say
            raise StepFailed from exc
        return out
