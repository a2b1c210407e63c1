"""A workload parameter: its name, default, range or choices, and how a value is parsed."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from concbench.errors import UserError

Params = Mapping[str, Any]


@dataclass(frozen=True)
class Param:
    """One workload parameter, passed to contenders as --name=value."""

    name: str
    default: Any
    help: str
    minimum: int | None = None
    maximum: int | None = None
    choices: tuple[str, ...] | None = None

    def parse(self, text: str) -> Any:
        """Parse and range-check a value given on the command line."""
        if self.choices is not None:
            if text not in self.choices:
                raise UserError(
                    f"parameter {self.name}={text} is not one of: {', '.join(self.choices)}"
                )
            return text
        try:
            value = int(text.replace("_", ""))
        except ValueError:
            raise UserError(f"parameter {self.name}={text!r} must be an integer") from None
        if self.minimum is not None and value < self.minimum:
            raise UserError(f"parameter {self.name}={value} is below the minimum {self.minimum}")
        if self.maximum is not None and value > self.maximum:
            raise UserError(f"parameter {self.name}={value} is above the maximum {self.maximum}")
        return value

    def describe(self) -> str:
        if self.choices:
            bounds = "|".join(self.choices)
        else:
            bounds = f"{self.minimum}..{self.maximum}"
        return f"{self.name} ({bounds}, default {self.default}): {self.help}"
