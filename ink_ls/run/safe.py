"""The terminal console of `ink-ls run`, `ink-ls sessions` and `ink-ls mcp`: text from outside
is printed as text, never interpreted.

`SafeConsole.print` turns every `str` it is given into a `Text` cleaned by
`core.sanitize.clean`: rich markup (`[/i]`) is not parsed and escape sequences do not act. The
styles the view adds itself travel as `Text`/renderables, which the view builds from cleaned
strings (`safe_text`).
"""

from __future__ import annotations

from typing import Any

from rich.console import Console, JustifyMethod, OverflowMethod
from rich.style import Style
from rich.text import Text

from ink_ls.core.sanitize import clean, clean_line

__all__ = ["SafeConsole", "clean", "clean_line", "safe_text"]


def safe_text(text: str, style: str | Style = "") -> Text:
    """A `Text` of outside `text`, cleaned, in `style` (never parsed as markup)."""
    return Text(clean(text), style=style)


class SafeConsole(Console):
    """A rich `Console` whose `print` never parses markup in, nor passes controls of, strings."""

    def __init__(self, *, stderr: bool = False, soft_wrap: bool = False) -> None:
        super().__init__(stderr=stderr, highlight=False, soft_wrap=soft_wrap, markup=False)

    def print(
        self,
        *objects: Any,
        sep: str = " ",
        end: str = "\n",
        style: str | Style | None = None,
        justify: JustifyMethod | None = None,
        overflow: OverflowMethod | None = None,
        no_wrap: bool | None = None,
        emoji: bool | None = None,
        markup: bool | None = None,
        highlight: bool | None = None,
        width: int | None = None,
        height: int | None = None,
        crop: bool = True,
        soft_wrap: bool | None = None,
        new_line_start: bool = False,
    ) -> None:
        safe = [Text(clean(o)) if isinstance(o, str) else o for o in objects]
        super().print(
            *safe,
            sep=sep,
            end=clean(end),
            style=style,
            justify=justify,
            overflow=overflow,
            no_wrap=no_wrap,
            emoji=False,
            markup=False,
            highlight=highlight,
            width=width,
            height=height,
            crop=crop,
            soft_wrap=soft_wrap,
            new_line_start=new_line_start,
        )
