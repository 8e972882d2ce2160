#!/usr/bin/env python3
"""Every function fits a screen: at most 50 lines from the first line of its declaration to its closing brace.

    scripts/check_function_length.py [ROOT]    exit 1, listing `file:line name length` for each longer one

A function's first line is where its declaration starts (its template header or attribute, if any; its comment is
not counted); its last is the line of its closing brace. A lambda inside a function is part of that function: the
function is what a reader has to hold, and splitting the lambda out splits the function. A lambda outside any
function (a namespace-scope initialiser, a registry table's entry) is measured on its own.

Folders: the libraries and executables (FOLDERS) and the tests (verify/), whose tests are read as often as the
code they check. Not scripts/peer/, which is the paper's code, patched, not ours.

It is not a C++ parser. It blanks comments, string and character literals (raw strings and digit separators
included) and preprocessor lines, keeping line breaks, so that the brackets left are the code's; then, at namespace
and class scope, it reads the text before each `{` to tell a namespace, a class, an enum, a brace initialiser, a
member's brace initialiser in a constructor's initialiser list and a function body apart. Brackets that do not
balance stop it with an error (exit 2) instead of a guess.
"""
import bisect
import re
import sys
from pathlib import Path

LIMIT = 50  # lines: a screen
FOLDERS = ("build_info", "lattices", "solvers", "analysis", "hdf5", "setup", "io", "runner", "cli", "bench", "verify")
SOURCES = (".hpp", ".cpp", ".cu", ".cuh", ".h")

# Functions allowed past a screen, each with why; one that fits (or is gone) is reported, so the list only shrinks.
ALLOWED: dict = {}

# Words that take a parenthesised argument without being the name of the function the parentheses belong to.
NOT_NAMES = {
    "decltype", "noexcept", "alignas", "alignof", "sizeof", "static_assert", "__attribute__", "__declspec",
    "__launch_bounds__", "throw", "requires", "typeid", "void", "int", "char", "bool", "float", "double", "long",
    "short", "unsigned", "signed", "auto", "return", "if", "while", "for", "switch", "catch", "explicit",
}
RAW_PREFIXES = ("R", "u8R", "uR", "UR", "LR")
WORD = re.compile(r"[A-Za-z_]\w*")
ACCESS = re.compile(r"\s*(?:public|private|protected)\s*:(?!:)")


class ParseError(Exception):
    pass


def _wipe(out, a, b):
    for k in range(a, b):
        if out[k] != "\n":
            out[k] = " "


def _line_end(text, i):
    """The end of the line at i, following backslash continuations."""
    n = len(text)
    while i < n and text[i] != "\n":
        i += 2 if text[i] == "\\" else 1
    return min(i, n)


def _quoted_end(text, i, quote):
    """The index of the quote closing the literal opened at i."""
    j = i + 1
    while j < len(text) and text[j] != quote:
        if text[j] == "\n":
            raise ParseError(f"unterminated literal at offset {i}")
        j += 2 if text[j] == "\\" else 1
    return j


def _directive_end(text, i):
    """The end of the preprocessor directive starting at i (continuations and block comments included)."""
    n = len(text)
    while i < n and text[i] != "\n":
        if text.startswith("/*", i):
            i = text.find("*/", i + 2)
            i = n if i < 0 else i + 2
        else:
            i += 2 if text[i] == "\\" else 1
    return min(i, n)


def blank(text):
    """`text` with comments, literals' contents and preprocessor lines turned to spaces, line breaks kept."""
    out = list(text)
    i, n, line_start = 0, len(text), True
    while i < n:
        c = text[i]
        if c == "\n" or c.isspace():
            line_start = line_start or c == "\n"
            i += 1
            continue
        if line_start and c == "#":
            j = _directive_end(text, i)
            _wipe(out, i, j)
            i = j
            continue
        line_start = False
        if text.startswith("//", i):
            j = _line_end(text, i)
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
        elif c == '"':
            prefix = re.search(r"\w*$", text[max(0, i - 3):i]).group()
            if prefix.endswith(RAW_PREFIXES) and (prefix in RAW_PREFIXES or not prefix[:-3].endswith("_")):
                open_paren = text.index("(", i)
                close = text.find(")" + text[i + 1:open_paren] + '"', open_paren)
                if close < 0:
                    raise ParseError(f"unterminated raw string at offset {i}")
                j = close + open_paren - i + 1
            else:
                j = _quoted_end(text, i, '"')
            _wipe(out, i + 1, j)
            i = j + 1
            continue
        elif c == "'":
            k = i
            while k > 0 and (text[k - 1].isalnum() or text[k - 1] in "_.'"):
                k -= 1
            if text[k].isdigit():  # a digit separator: 1'000
                i += 1
                continue
            j = _quoted_end(text, i, "'")
            _wipe(out, i + 1, j)
            i = j + 1
            continue
        else:
            i += 1
            continue
        _wipe(out, i, j)
        i = j
    return "".join(out)


def _matches(clean, lines):
    """For each opening bracket's index, the index of the bracket closing it."""
    pairs, stack = {}, []
    closing = {")": "(", "]": "[", "}": "{"}
    for i, c in enumerate(clean):
        if c in "([{":
            stack.append(i)
        elif c in closing:
            if not stack or clean[stack[-1]] != closing[c]:
                raise ParseError(f"line {lines(i)}: '{c}' closes nothing it matches")
            pairs[stack.pop()] = i
    if stack:
        raise ParseError(f"line {lines(stack[-1])}: '{clean[stack[-1]]}' is never closed")
    return pairs


def _tokens(clean, start, end, pairs):
    """(kind, text, index) of the code between start and end; a bracketed group is one token ('group')."""
    found, i = [], start
    while i < end:
        c = clean[i]
        if c.isspace():
            i += 1
        elif c in "([{":
            found.append(("group", c, i))
            i = pairs[i] + 1
        elif m := WORD.match(clean, i):
            found.append(("word", m.group(), i))
            i = m.end()
        elif clean.startswith(("::", "->", "..."), i):
            size = 3 if clean.startswith("...", i) else 2
            found.append(("punct", clean[i:i + size], i))
            i += size
        else:
            found.append(("punct", c, i))
            i += 1
    return found


def _strip_prefixes(tokens, pairs, clean):
    """The tokens without leading template headers and [[attributes]]."""
    k = 0
    while k < len(tokens):
        kind, text, at = tokens[k]
        if kind == "group" and text == "[" and clean[at + 1:pairs[at]].lstrip().startswith("["):
            k += 1
        elif kind == "word" and text == "template" and k + 1 < len(tokens) and tokens[k + 1][1] == "<":
            depth, k = 0, k + 1
            while k < len(tokens):
                depth += {"<": 1, ">": -1}.get(tokens[k][1], 0) if tokens[k][0] == "punct" else 0
                k += 1
                if depth == 0:
                    break
        else:
            break
    return tokens[k:]


def _qualified_name(tokens, k):
    """The (possibly qualified) name ending at token k."""
    parts, depth = [tokens[k][1]], 0
    j = k - 1
    while j >= 0:
        kind, text, _ = tokens[j]
        if depth == 0 and text == "~":
            parts.insert(0, text)
        elif depth == 0 and text == "::" or kind == "word" and (depth > 0 or parts[0] == "::"):
            parts.insert(0, text)
        elif text == ">" and parts[0] == "::":
            depth += 1
        elif text == "<" and depth > 0:
            depth -= 1
        elif depth == 0:
            break
        j -= 1
    return "".join(p for p in parts if p)


def _function_signature(tokens, clean, pairs):
    """(name, index of the parameters' token) of the function these tokens declare, or None."""
    angle = 0
    for k, (kind, text, at) in enumerate(tokens):
        if kind == "word" and text == "operator":
            rest = tokens[k + 1:]
            j = 0
            if len(rest) > 1 and rest[0][:2] == ("group", "(") and rest[1][:2] == ("group", "("):
                return "operator()", k + 2
            while j < len(rest) and rest[j][:2] != ("group", "("):
                j += 1
            if j == len(rest):
                return None
            symbol = "".join(t[1] + ("]" if t[1] == "[" else "") for t in rest[:j])
            return "operator" + (" " if rest[0][0] == "word" else "") + symbol, k + 1 + j
        if kind == "punct" and text == "<" and (angle > 0 or k > 0 and tokens[k - 1][0] == "word"):
            angle += 1
        elif kind == "punct" and text == ">" and angle > 0:
            angle -= 1
        elif angle == 0 and kind == "punct" and text == "=":
            return None
        elif angle == 0 and kind == "group" and text == "(" and k > 0:
            before = tokens[k - 1]
            if before[0] == "word" and before[1] not in NOT_NAMES:
                name = _qualified_name(tokens, k - 1)
                if re.fullmatch(r"[A-Z][A-Z0-9_]+", name):  # a macro such as TEST(Suite, Name): its arguments name it
                    name += " ".join(clean[at:pairs[at] + 1].split())
                return name, k
            if before[1] == ">" and k > 1:  # an explicit specialisation: f<int>(
                depth, j = 0, k - 1
                while j >= 0:
                    depth += {">": 1, "<": -1}.get(tokens[j][1], 0) if tokens[j][0] == "punct" else 0
                    if depth == 0:
                        break
                    j -= 1
                if j > 0 and tokens[j - 1][0] == "word":
                    return _qualified_name(tokens, j - 1), k
    return None


def classify(clean, start, end, pairs):
    """What the `{` at `end` opens, with the declaration's first index: 'function' (and its name), 'namespace',
    'class', 'enum', 'member' (a member's brace initialiser in an initialiser list) or 'init'."""
    tokens = _tokens(clean, start, end, pairs)
    while len(tokens) > 1 and tokens[0][1] in ("public", "private", "protected") and tokens[1][1] == ":":
        tokens = tokens[2:]
    first = tokens[0][2] if tokens else end
    tokens = _strip_prefixes(tokens, pairs, clean)
    words = [t[1] for t in tokens if t[0] == "word"]
    if words[:1] == ["namespace"] or words[:2] == ["inline", "namespace"] or words == ["extern"]:
        return "namespace", first, None
    signature = _function_signature(tokens, clean, pairs)
    if signature:
        name, params = signature
        tail = tokens[params + 1:]
        if any(t[1] == ":" for t in tail):
            last = tail[-1]
            if last[0] == "group" or last[1] == "...":
                return "function", first, name
            return "member", first, None
        if any(t[1] == "=" for t in tail):
            return "init", first, None
        return "function", first, name
    if "enum" in words:
        return "enum", first, None
    if any(w in ("class", "struct", "union") for w in words):
        return "class", first, None
    return "init", first, None


def _lambda_body(clean, i, pairs):
    """The index of the `{` of the lambda whose introducer `[` is at i, or None."""
    if clean[i + 1:pairs[i]].lstrip().startswith("["):
        return None
    k = i - 1
    while k >= 0 and clean[k].isspace():
        k -= 1
    if k >= 0 and (clean[k].isalnum() or clean[k] in "_)]>\"'"):  # a subscript or an array's declarator
        return None
    j, n = pairs[i] + 1, len(clean)
    while j < n:
        while j < n and clean[j].isspace():
            j += 1
        if j >= n:
            return None
        c = clean[j]
        if c == "{":
            return j
        if c in "([":
            j = pairs[j] + 1
        elif c == "<" or clean.startswith("->", j):
            j += 2 if c == "-" else 1
            while j < n and (clean[j].isalnum() or clean[j] in "_:<>,*& \n\t"):
                j += 1
        elif m := WORD.match(clean, j):
            j = m.end()
        else:
            return None
    return None


class Scanner:
    """The functions of one source, found scope by scope from its blanked text."""

    def __init__(self, text):
        self.clean = blank(text)
        self.breaks = [k for k, c in enumerate(self.clean) if c == "\n"]
        self.pairs = _matches(self.clean, self.line)
        self.found = []

    def line(self, index):
        return bisect.bisect_left(self.breaks, index) + 1

    def record(self, name, start, end):
        self.found.append((self.line(start), name, self.line(end) - self.line(start) + 1))

    def scan(self, start, end, kind, owner=""):
        """Find the functions between start and end, a scope of this kind (namespace, class or expr)."""
        clean, pairs = self.clean, self.pairs
        head, i = start, start
        while i < end:
            c = clean[i]
            if c in ";}" or c == "," and kind == "expr":
                head = i + 1
            elif c == "[" and (body := _lambda_body(clean, i, pairs)) is not None:
                named = re.search(r"(\w+)\s*=\s*$", clean[max(head, i - 200):i])
                self.record(f"lambda {named.group(1) if named else 'in ' + (owner or '?')}", i, pairs[body])
                i = pairs[body] + 1
                continue
            elif c == "(":
                self.scan(i + 1, pairs[i], "expr", owner)
                i = pairs[i] + 1
                continue
            elif c == "{":
                i, ends_declaration = self.brace(head, i, kind, owner)
                if ends_declaration:
                    head = i
                continue
            i += 1

    def brace(self, head, i, kind, owner):
        """Handle the `{` at i of a scope of this kind; return the index after its `}` and whether the brackets
        end the declaration (a function's, a namespace's or a class's body) or are part of it (an initialiser)."""
        close = self.pairs[i]
        if kind == "expr":
            self.scan(i + 1, close, "expr", owner)
            return close + 1, False
        what, first, name = classify(self.clean, head, i, self.pairs)
        if what == "function":
            self.record(f"{owner}::{name}" if kind == "class" and owner else name, first, close)
        elif what == "namespace":
            self.scan(i + 1, close, what)
        elif what == "class":
            named = re.findall(r"\b(?:class|struct|union)\s+(?:alignas\s*\([^)]*\)\s*)?(\w+)", self.clean[head:i])
            self.scan(i + 1, close, what, named[-1] if named else "")
        elif what in ("init", "member"):
            declared = re.search(r"(\w+)\s*(?:\[[^]]*\])?\s*=?\s*$", self.clean[max(head, i - 200):i])
            self.scan(i + 1, close, "expr", declared.group(1) if declared else owner)
            return close + 1, False
        return close + 1, True


def functions(text):
    """(line, name, length) of every function in this C++ source."""
    scanner = Scanner(text)
    scanner.scan(0, len(scanner.clean), "namespace")
    return scanner.found


def too_long(root, allowed=None):
    """(path, line, name, length) of every function over the limit but not allowed, and (path, name) of each
    allowed one that is not (ALLOWED unless given)."""
    allowed = ALLOWED if allowed is None else allowed
    over, allowed_seen = [], set()
    for folder in FOLDERS:
        for path in sorted((root / folder).rglob("*")):
            if path.suffix not in SOURCES:
                continue
            relative = path.relative_to(root).as_posix()
            try:
                found = functions(path.read_text(encoding="utf-8"))
            except ParseError as e:
                raise ParseError(f"{relative}: {e}") from None
            for line, name, length in found:
                if length <= LIMIT:
                    continue
                if name in allowed.get(relative, ()):
                    allowed_seen.add((relative, name))
                else:
                    over.append((relative, line, name, length))
    stale = [(path, name) for path, names in allowed.items() for name in names if (path, name) not in allowed_seen]
    return over, stale


def main():
    root = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent)
    try:
        over, stale = too_long(root)
    except ParseError as e:
        print(f"cannot read {e}")
        return 2
    for path, line, name, length in over:
        print(f"{path}:{line} {name} {length} lines (a screen is {LIMIT})")
    for path, name in stale:
        print(f"{path}: {name} is allowed to be longer than a screen but is not (or is gone): drop it from ALLOWED")
    return 1 if over or stale else 0


if __name__ == "__main__":
    sys.exit(main())
