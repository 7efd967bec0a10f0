"""Places a fenced block addressed by AST path (` ```python:Client-chat:after `).

The path is looked up in the document's symbol index; the block replaces the
symbol (default), is inserted before or after it, or removes it. Replacements
and insertions are re-indented to the symbol's indentation, insertions are
separated from their neighbours the way the file separates definitions, and a
replacement touches only the lines that really change.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Callable, Sequence

from lsp_edit.blocks.model import AstTarget, FencedEdit
from lsp_edit.resolve.diffing import minimal_edits
from lsp_edit.resolve.elision import expand_elisions, placeholders_in
from lsp_edit.resolve.model import AlreadyApplied, Placed, Refused, Resolution
from lsp_edit.symbols.index import find_symbols, index_symbols
from lsp_edit.symbols.languages import LanguageSpec, spec_for, supported_languages
from lsp_edit.symbols.model import Symbol
from lsp_edit.text import LineEdit, Text

STRATEGY = "ast_path"
_MAX_SUGGESTIONS = 8
_MAX_GAP = 3

SymbolsOf = Callable[[Text, str], list[Symbol]]
"""Gives the symbols of a text in a language (canonical name)."""


def resolve_ast_path(
    block: FencedEdit, text: Text, language: str, *, symbols_of: SymbolsOf = index_symbols
) -> Resolution:
    """Places `block` (whose target is an AstTarget) in `text`, written in `language`.

    `symbols_of` gives a text's symbols; a caller placing many blocks in one file
    passes a `SymbolIndex` lookup so each new text is reparsed incrementally.
    """
    target = block.target
    if not isinstance(target, AstTarget):
        return Refused("invalid_operation", "this block has no AST path target")
    spec = spec_for(language)
    if spec is None:
        return _unsupported(language)
    content = _trim_blank_edges(block.content)
    if target.action == "replace" and not content:
        return Refused(
            "invalid_operation",
            f"the block for `{target.written}` is empty; use `{spec.tags[0]}:{target.written}"
            ":remove` to delete a symbol",
        )
    symbols = symbols_of(text, spec.name)
    located = _locate(symbols, spec, target.parts, target.written, content, target.action, text)
    if isinstance(located, Refused):
        return located
    if target.action == "remove":
        return _remove(located, text)
    reference = text.lines[located.start_line : located.end_line]
    if _indent_style(reference) is None:
        reference = text.lines
    styled = follow_indent_style(content, reference)
    lines = _reindent(styled, located.indent, spec)
    if target.action == "replace":
        return _replace(located, lines, spec, text, target.written)
    gap = _blank_gap(located, symbols, text)
    if target.action == "before":
        new = (*lines, *([""] * gap))
        return Placed((LineEdit(located.start_line, located.start_line, new),), STRATEGY)
    new = (*([""] * gap), *lines)
    return Placed((LineEdit(located.end_line, located.end_line, new),), STRATEGY)


def locate_symbol(
    text: Text, language: str, parts: Sequence[str], *, symbols_of: SymbolsOf = index_symbols
) -> Symbol | Refused:
    """The one symbol at `parts` in `text`, or why there is not exactly one
    (`symbol_not_found`, `symbol_ambiguous`, `unsupported_language`)."""
    spec = spec_for(language)
    if spec is None:
        return _unsupported(language)
    symbols = symbols_of(text, spec.name)
    return _locate(symbols, spec, tuple(parts), "-".join(parts), (), "remove", text)


def _locate(
    symbols: Sequence[Symbol],
    spec: LanguageSpec,
    parts: Sequence[str],
    written: str,
    content: Sequence[str],
    action: str,
    text: Text,
) -> Symbol | Refused:
    candidates = find_symbols(symbols, parts)
    if not candidates:
        return _not_found(symbols, spec, parts, written)
    if len(candidates) == 1:
        return candidates[0]
    if action == "replace":
        # The replacement's own signature line picks one of several same-named symbols.
        signature = _signature_line(content, spec)
        chosen = [c for c in candidates if text.lines[c.body_start_line].strip() == signature]
        if len(chosen) == 1:
            return chosen[0]
    listing = "; ".join(
        f"lines {_lines(c)}: `{text.lines[c.body_start_line].strip()}`" for c in candidates
    )
    how = (
        "Start the replacement with the exact signature line of the one to change"
        if action == "replace"
        else "Use a line-range block for the one you mean"
    )
    return Refused(
        "symbol_ambiguous",
        f"AST path `{written}` names {len(candidates)} symbols in this file ({listing}). {how}.",
        tuple(_span(c) for c in candidates),
    )


def _not_found(
    symbols: Sequence[Symbol], spec: LanguageSpec, parts: Sequence[str], written: str
) -> Refused:
    if not symbols:
        return Refused(
            "symbol_not_found",
            f"No symbol `{written}`: this {spec.name} file has no definitions an AST path can "
            "name. Use a line range or the complete file instead.",
        )
    by_path = {symbol.dotted: symbol for symbol in reversed(symbols)}
    wanted = "-".join(parts)
    names = list(by_path)
    close = difflib.get_close_matches(wanted, names, n=_MAX_SUGGESTIONS, cutoff=0.5)
    last = parts[-1].lower() if parts else ""
    same_name = [name for name, s in by_path.items() if s.path[-1].lower() == last]
    suggestions = list(dict.fromkeys([*close, *same_name]))[:_MAX_SUGGESTIONS]
    if suggestions:
        listed = ", ".join(
            f"`{name}` ({by_path[name].kind}, lines {_lines(by_path[name])})"
            for name in suggestions
        )
        hint = f"Closest paths: {listed}."
        shown = [by_path[name] for name in suggestions]
    else:
        top = [name for name, s in by_path.items() if len(s.path) == 1][:_MAX_SUGGESTIONS]
        hint = f"Top-level symbols: {', '.join(f'`{name}`' for name in top)}."
        shown = []
    return Refused(
        "symbol_not_found",
        f"No symbol `{written}` in this {spec.name} file. {hint} "
        "Retry with an existing path (names joined by `-`, outermost first).",
        tuple(_span(symbol) for symbol in shown),
    )


def _unsupported(language: str) -> Refused:
    return Refused(
        "unsupported_language",
        f"AST paths are not available for `{language}`; supported: "
        f"{', '.join(supported_languages())}. Use a line range or the complete file instead.",
    )


def _replace(
    symbol: Symbol, lines: Sequence[str], spec: LanguageSpec, text: Text, written: str
) -> Resolution:
    start = symbol.start_line
    lines = (*_merge_leading(text.lines[start : symbol.body_start_line], lines, spec),)
    old = text.lines[start : symbol.end_line]
    # `# ... rest unchanged ...` stands for the symbol's own lines: never delete them.
    expanded = expand_elisions(
        old, lines, placeholders_in(lines, {line.strip() for line in old}), start + 1
    )
    if isinstance(expanded, Refused):
        return expanded
    lines = expanded.lines
    if list(old) == list(lines):
        return AlreadyApplied(
            f"`{written}` already has this content (lines {start + 1}-{symbol.end_line})"
        )
    return Placed(minimal_edits(old, lines, start), STRATEGY, expanded.notes)


def _remove(symbol: Symbol, text: Text) -> Placed:
    """Deletes the symbol and one of the blank runs around it, so the blank lines
    left are those the file had between the neighbours."""
    lines = text.lines
    above = 0
    while symbol.start_line - above > 0 and not lines[symbol.start_line - above - 1].strip():
        above += 1
    below = 0
    while symbol.end_line + below < len(lines) and not lines[symbol.end_line + below].strip():
        below += 1
    at_end = symbol.end_line + below >= len(lines)
    start, end = symbol.start_line, symbol.end_line
    if above == 0 or (below and not at_end and below <= above):
        end += below
    else:
        start -= above
    return Placed((LineEdit(start, end, ()),), STRATEGY)


def _blank_gap(symbol: Symbol, symbols: Sequence[Symbol], text: Text) -> int:
    """The blank lines the file puts between this symbol and its neighbour at the
    same indentation (above, else below); 1 when it has none."""
    lines = text.lines
    previous = max(
        (
            s.end_line
            for s in symbols
            if s.indent == symbol.indent and s.end_line <= symbol.start_line
        ),
        default=None,
    )
    if previous is not None and all(
        not line.strip() for line in lines[previous : symbol.start_line]
    ):
        return min(symbol.start_line - previous, _MAX_GAP) or 1
    following = min(
        (
            s.start_line
            for s in symbols
            if s.indent == symbol.indent and s.start_line >= symbol.end_line
        ),
        default=None,
    )
    if following is not None and all(
        not line.strip() for line in lines[symbol.end_line : following]
    ):
        return min(following - symbol.end_line, _MAX_GAP) or 1
    return 1


def _trim_blank_edges(content: Sequence[str]) -> tuple[str, ...]:
    start, end = 0, len(content)
    while start < end and not content[start].strip():
        start += 1
    while end > start and not content[end - 1].strip():
        end -= 1
    return tuple(content[start:end])


def _is_leading_line(line: str, spec: LanguageSpec) -> bool:
    return line.lstrip().startswith(spec.comment_prefixes + spec.attribute_prefixes)


def _leading_count(content: Sequence[str], spec: LanguageSpec) -> int:
    """How many lines open `content` before its definition line: comments (block
    comments whole), decorators and attributes (with the lines their open brackets
    run over)."""
    in_block_comment = False
    depth = 0
    for index, line in enumerate(content):
        stripped = line.strip()
        if in_block_comment:
            in_block_comment = "*/" not in stripped
            continue
        if depth > 0:
            depth += _bracket_balance(stripped)
            continue
        if not _is_leading_line(line, spec):
            return index
        in_block_comment = stripped.startswith("/*") and "*/" not in stripped
        if spec.attribute_prefixes and stripped.startswith(spec.attribute_prefixes):
            depth = max(_bracket_balance(stripped), 0)
    return len(content)


def _bracket_balance(line: str) -> int:
    return sum(line.count(c) for c in "([{") - sum(line.count(c) for c in ")]}")


def _split_leading(lines: Sequence[str], spec: LanguageSpec) -> tuple[list[str], list[str]]:
    """A symbol's leading lines as (comment lines, decorator/attribute lines)."""
    comments: list[str] = []
    attributes: list[str] = []
    current = comments
    in_block_comment = False
    for line in lines:
        stripped = line.strip()
        if in_block_comment:
            comments.append(line)
            in_block_comment = "*/" not in stripped
            continue
        if spec.attribute_prefixes and stripped.startswith(spec.attribute_prefixes):
            current = attributes
        elif stripped.startswith(spec.comment_prefixes):
            current = comments
            in_block_comment = stripped.startswith("/*") and "*/" not in stripped
        current.append(line)
    return comments, attributes


def _merge_leading(
    old_leading: Sequence[str], content: Sequence[str], spec: LanguageSpec
) -> list[str]:
    """The replacement with the symbol's doc comment and decorators settled: what the
    replacement brings of each kind replaces the old; a kind it does not bring stays."""
    count = _leading_count(content, spec)
    new_comments, new_attributes = _split_leading(content[:count], spec)
    body = list(content[count:])
    if new_comments and new_attributes:
        return list(content)
    old_comments, old_attributes = _split_leading(old_leading, spec)
    return [*(new_comments or old_comments), *(new_attributes or old_attributes), *body]


def _signature_line(content: Sequence[str], spec: LanguageSpec) -> str:
    """The first line that is neither blank nor part of a comment/attribute, stripped."""
    rest = content[_leading_count(content, spec) :]
    return next((line.strip() for line in rest if line.strip()), "")


def follow_indent_style(content: Sequence[str], reference: Sequence[str]) -> tuple[str, ...]:
    """`content` indented the way `reference` (the file's lines it replaces or joins)
    indents: with tabs where the block used spaces, or the reverse. A block's own
    indentation unit (its smallest step) stands for one tab; spaces left over after
    whole tabs stay (alignment). Anything else is left as written."""
    file_style = _indent_style(reference)
    block_style = _indent_style(content)
    if file_style is None or block_style is None or file_style == block_style:
        return tuple(content)
    if file_style == "\t":
        width = _space_unit(content)
        return tuple(_spaces_to_tabs(line, width) for line in content) if width else tuple(content)
    width = _space_unit(reference)
    if not width:
        return tuple(content)
    return tuple(_tabs_to_spaces(line, width) for line in content)


def _indent_style(lines: Sequence[str]) -> str | None:
    """`\t` or ` ` when every indented line starts with it; None when mixed or flat."""
    starts = {line[0] for line in lines if line.strip() and line[0] in " \t"}
    return starts.pop() if len(starts) == 1 else None


def _space_unit(lines: Sequence[str]) -> int:
    """The greatest common step of the lines' leading spaces (0: none indented)."""
    unit = 0
    for line in lines:
        if line.strip():
            unit = math.gcd(unit, len(line) - len(line.lstrip(" ")))
    return unit


def _spaces_to_tabs(line: str, width: int) -> str:
    spaces = len(line) - len(line.lstrip(" "))
    return "\t" * (spaces // width) + " " * (spaces % width) + line[spaces:]


def _tabs_to_spaces(line: str, width: int) -> str:
    tabs = len(line) - len(line.lstrip("\t"))
    return " " * (tabs * width) + line[tabs:]


def _reindent(content: Sequence[str], indent: str, spec: LanguageSpec) -> tuple[str, ...]:
    """Shifts the block so its definition line sits at `indent`; lines indented
    less than that line are left as written (string contents)."""
    signature = _signature_line(content, spec)
    definition = next((line for line in content if line.strip() == signature), "")
    base = definition[: len(definition) - len(definition.lstrip())]
    if base == indent:
        return tuple(content)
    shifted = []
    for line in content:
        if not line.strip():
            shifted.append("")
        elif line.startswith(base):
            shifted.append(indent + line[len(base) :])
        else:
            shifted.append(line)
    return tuple(shifted)


def _lines(symbol: Symbol) -> str:
    return f"{symbol.start_line + 1}-{symbol.end_line}"


def _span(symbol: Symbol) -> tuple[int, int]:
    """The symbol's 1-based first and last lines."""
    return symbol.start_line + 1, max(symbol.start_line + 1, symbol.end_line)
