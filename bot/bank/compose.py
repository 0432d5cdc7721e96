"""YAML text to a node tree, refusing what no question file needs.

PyYAML's composer recurses once per nesting level, so a deeply nested file would end in
RecursionError: the depth is checked before each descent, so nothing deep is ever built. The number
of values is bounded as well, which bounds time and memory (a value costs far more than a byte).
Aliases (`*name`) are refused: through them a few bytes make the checker walk one subtree over and
over (a "billion laughs"), and a question file has nothing to repeat (merge keys never worked).
"""

from __future__ import annotations

import yaml

from bot.bank import limits


class Refused(Exception):
    """The file uses YAML a question file never needs; `line` is 1-based, as in problems."""

    def __init__(self, event: yaml.Event) -> None:
        super().__init__()
        mark = event.start_mark
        self.line = int(mark.line) + 1 if mark is not None else 1


class TooDeep(Refused):
    pass


class TooMany(Refused):
    pass


class AliasUsed(Refused):
    def __init__(self, event: yaml.AliasEvent) -> None:
        super().__init__(event)
        self.name = str(event.anchor)


class _PlainDataLoader(yaml.SafeLoader):
    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self.depth = 0
        self.values = 0

    def compose_node(self, parent: yaml.Node | None, index: int) -> yaml.Node | None:
        event: yaml.Event = self.peek_event()  # type: ignore[no-untyped-call]
        if isinstance(event, yaml.AliasEvent):
            raise AliasUsed(event)
        self.values += 1
        if self.values > limits.MAX_VALUES:
            raise TooMany(event)
        if not isinstance(event, yaml.CollectionStartEvent):
            return super().compose_node(parent, index)
        if self.depth >= limits.MAX_DEPTH:
            raise TooDeep(event)
        self.depth += 1
        try:
            return super().compose_node(parent, index)
        finally:
            self.depth -= 1


def compose(text: str) -> yaml.Node | None:
    """The single document in `text`; raises Refused, or yaml.YAMLError for broken YAML."""
    return yaml.compose(text, Loader=_PlainDataLoader)
