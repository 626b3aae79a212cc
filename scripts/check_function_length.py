#!/usr/bin/env python3
"""No function in src/ longer than LIMIT lines (from the line of its opening brace to the line of
its closing one). Functions are found by their braces, outside comments and literals: a block at
namespace or class scope whose header has a parameter list. Lambdas and local blocks count with the
function around them. Run by CI (`ctest -L house`).

  python3 scripts/check_function_length.py [ROOT] [--limit N]
"""
import pathlib
import re
import sys

LIMIT = 80
# Functions still over the limit, with the length they may not exceed. The list may only shrink:
# a function that drops under the limit must leave it, and no other may join.
KNOWN = {
}
SCOPE = re.compile(r'\b(namespace|class|struct|union|enum)\b|extern\s*"C"')


def strip(text: str) -> str:
    """Comments, string and character literals blanked (newlines kept, so lines still count)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("\n" * text.count("\n", i, j))
            i = j
        elif text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            k = text.find("(", i)
            delimiter = ")" + text[i + 2:k] + '"'
            j = text.find(delimiter, k)
            j = n if j < 0 else j + len(delimiter)
            out.append('""' + "\n" * text.count("\n", i, j))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(c + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    # preprocessor lines (with their continuations) are not code
    return re.sub(r"^[ \t]*#(?:[^\n]*\\\n)*[^\n]*", "", "".join(out), flags=re.M)


def outside_parentheses(header: str) -> str:
    depth, kept = 0, []
    for c in header:
        if c in "([<" and c != "<":
            depth += 1
        elif c in ")]" and depth > 0:
            depth -= 1
        elif depth == 0:
            kept.append(c)
    return "".join(kept)


def long_functions(path: pathlib.Path, limit: int):
    text = strip(path.read_text(encoding="utf-8"))
    stack = []  # per open brace: "scope", "function" or "block"
    header_start, line = 0, 1
    opened_at = 0
    for i, c in enumerate(text):
        if c == "\n":
            line += 1
        elif c in ";":
            header_start = i + 1
        elif c == "{":
            header = text[header_start:i]
            at_scope = all(kind == "scope" for kind in stack)
            if at_scope and SCOPE.search(outside_parentheses(header)) and "(" not in outside_parentheses(header):
                stack.append("scope")
            elif at_scope and "(" in header and "=" not in outside_parentheses(header).replace("==", ""):
                stack.append("function")
                opened_at = line
                name = re.findall(r"([~\w:]+)\s*\(", header)
                function_name = name[0] if name else "?"
            else:
                stack.append("block")
            header_start = i + 1
        elif c == "}":
            kind = stack.pop() if stack else "scope"
            if kind == "function" and line - opened_at + 1 > limit:
                yield opened_at, line - opened_at + 1, function_name
            header_start = i + 1
    return


def main() -> int:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    limit = int(sys.argv[sys.argv.index("--limit") + 1]) if "--limit" in sys.argv else LIMIT
    if "--limit" in sys.argv:
        args.remove(str(limit))
    root = pathlib.Path(args[0]) if args else pathlib.Path(__file__).resolve().parent.parent
    found, listed = [], set()
    for file in sorted((root / "src").rglob("*")):
        if file.suffix not in (".cpp", ".hpp", ".h"):
            continue
        relative = f"src/{file.relative_to(root / 'src').as_posix()}"
        for start, length, name in long_functions(file, limit):
            key = f"{relative}:{name}"
            if key in KNOWN and length <= KNOWN[key]:
                listed.add(key)
                continue
            grew = f" (listed at {KNOWN[key]}: it grew)" if key in KNOWN else ""
            found.append(f"{relative}:{start}: {name} is {length} lines{grew}")
    for key in sorted(set(KNOWN) - listed):
        found.append(f"{key} is listed in KNOWN but no longer over {limit} lines (or moved): remove it from the list")
    for entry in found:
        print(entry)
    print(f"check_function_length: {len(found)} problem(s); {len(listed)} listed function(s) still over {limit} lines")
    return 1 if found else 0

if __name__ == "__main__":
    sys.exit(main())
