"""Names are only text: escaping cannot be forgotten (docs/reliability.md, 'Names are only
text'). Streamlit renders the text of its text elements and widget labels as markdown (an
image, a link, KaTeX, :color[...]), so every page hands them constants, or text made
literal by `ui.md` where it is written: a check over the dashboard's source, which fails
when a page gives one of them anything else (a variable, a name, a message, a file name)."""

from __future__ import annotations

import ast
from pathlib import Path

DASHBOARD = Path(__file__).resolve().parents[2] / "dashboard"
# every file that draws: the pages and the frame, the sidebar and the shared furniture
SOURCES = sorted((DASHBOARD / "views").glob("*.py")) + [
    DASHBOARD / name for name in ("app.py", "ui.py", "auth.py", "tables.py", "pastes.py")]

# Streamlit's elements whose text is rendered as markdown, and where that text goes: the
# positions of the arguments that are text (None: every one), and the keywords
BODY = ((0,), ("body",))
LABEL = ((0,), ("label",))
TEXT_ELEMENTS: dict[str, tuple[tuple[int, ...] | None, tuple[str, ...]]] = {
    **{name: BODY for name in ("markdown", "caption", "title", "header", "subheader", "text",
                               "info", "warning", "error", "success", "toast", "badge")},
    "write": (None, ()),
    "metric": ((0, 1, 2), ("label", "value", "delta")),
    **{name: LABEL for name in (
        "expander", "popover", "status", "button", "checkbox", "toggle", "download_button",
        "link_button", "form_submit_button", "selectbox", "multiselect", "slider",
        "select_slider", "text_input", "text_area", "number_input", "date_input",
        "time_input", "file_uploader", "color_picker", "camera_input", "audio_input")},
    "page_link": ((), ("label",)),
    "progress": ((1,), ("text",)),  # a progress bar's text is markdown
    "radio": ((0,), ("label",)),
    "pills": ((0,), ("label",)),
    "segmented_control": ((0,), ("label",)),
}
# arguments that are lists of markdown texts (tab labels, radio and pill options, captions)
TEXT_LISTS: dict[str, tuple[tuple[int, ...], tuple[str, ...]]] = {
    "tabs": ((0,), ("tabs",)),
    "radio": ((1,), ("options", "captions")),
    "pills": ((1,), ("options",)),
    "segmented_control": ((1,), ("options",)),
}
EVERYWHERE = ("help",)  # a tooltip is markdown too
# Escapers (dashboard/ui.py): their result is literal text (`code`: an inline code span,
# fenced longer than any run of backticks in it, which markdown shows as it is). `count`
# writes a number and a constant noun; numbers written with a numeric format (`:,`, `:d`,
# `:.1f`) are digits.
ESCAPERS = {"md", "plain", "code"}
# percent-encoding leaves letters, digits and -_.~%+=& only: a link's target, never markup
URL_ENCODERS = {"quote", "urlencode"}
NUMBERS = {"len", "int", "float", "round", "abs"}
NUMERIC_SPEC = set("dfFeEgGn%xXbo,")
# `ui.metric(where, ...)` and the like are the escaping wrappers themselves
RECEIVERS_THAT_ARE_NOT_STREAMLIT = {"ui", "stderr", "stdout", "f", "out", "fh", "file", "buf",
                                    "_log"}
# Streamlit calls of the pages that render no markdown from data (code, charts, data frames,
# layout, configuration): everything else a page calls is checked above. A call of Streamlit
# in neither list fails `test_every_streamlit_call_of_the_pages_is_checked_or_renders_no_markdown`
# until someone decides which it is (st.table, say, renders its cells as markdown).
NO_MARKDOWN = {"Page", "navigation", "set_page_config", "get_option", "cache_data", "rerun",
               "login", "logout", "columns", "container", "form", "empty", "code",
               "dataframe", "data_editor", "plotly_chart", "html"}
# HTML the pages build: DOMPurify lets an image or a link through, so a text in it goes
# through ui.text_html; only ui.py builds HTML from data (cards, players), elsewhere
# st.html gets a constant
HTML_BUILDERS = {"ui.py"}
# names of Streamlit's that the pages use for something else: pandas' map, a DataFrame's
MAP_OF_PANDAS = {"map"}


def _spec(value: ast.FormattedValue) -> str:
    if value.format_spec is None:
        return ""
    assert isinstance(value.format_spec, ast.JoinedStr)
    return "".join(str(v.value) for v in value.format_spec.values
                   if isinstance(v, ast.Constant))


def literal(node: ast.expr) -> bool:
    """Whether `node` can only be literal text: constants, escaped values, numbers."""
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, (ast.Name, ast.Attribute)):  # a constant of ours: limits.MAX_FILES
        name = node.id if isinstance(node, ast.Name) else node.attr
        return name.isupper()
    if isinstance(node, ast.Subscript):  # a constant table of ours: RULES[rule]
        return literal(node.value) and not isinstance(node.value, ast.Constant)
    if isinstance(node, ast.JoinedStr):
        return all(isinstance(v, ast.Constant) or
                   (isinstance(v, ast.FormattedValue) and
                    (_spec(v)[-1:] in NUMERIC_SPEC and _spec(v) != "" or literal(v.value)))
                   for v in node.values)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return literal(node.left) and literal(node.right)
    if isinstance(node, ast.IfExp):
        return literal(node.body) and literal(node.orelse)
    if isinstance(node, ast.BoolOp):
        return all(literal(v) for v in node.values)
    if isinstance(node, ast.Call):
        name = _called(node)
        if name in ESCAPERS or name in NUMBERS or name in URL_ENCODERS:
            return True
        if name == "count":  # ui.count(n, "noun"): digits and a constant noun
            return all(literal(a) for a in node.args[1:])
        if name == "join" and isinstance(node.func, ast.Attribute) \
                and isinstance(node.func.value, ast.Constant):
            return all(literal_list(a) for a in node.args)
    return False


def literal_list(node: ast.expr) -> bool:
    if isinstance(node, (ast.List, ast.Tuple)):
        return all(literal(e) for e in node.elts)
    if isinstance(node, (ast.ListComp, ast.GeneratorExp)):
        return literal(node.elt)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return literal_list(node.left) and literal_list(node.right)
    return False


def _called(call: ast.Call) -> str | None:
    f = call.func
    return f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else None


def _receiver(call: ast.Call) -> str | None:
    f = call.func
    if isinstance(f, ast.Attribute):
        v = f.value
        return v.attr if isinstance(v, ast.Attribute) else v.id if isinstance(v, ast.Name) \
            else None
    return None


def unescaped(path: Path) -> list[str]:
    """`FILE:LINE: element: the argument` for each text an element gets that may be data."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
            continue
        element = node.func.attr
        if element not in TEXT_ELEMENTS and element not in TEXT_LISTS or \
                _receiver(node) in RECEIVERS_THAT_ARE_NOT_STREAMLIT:
            continue
        texts: list[ast.expr] = []
        lists: list[ast.expr] = []
        positions, keywords = TEXT_ELEMENTS.get(element, ((), ()))
        texts += [a for i, a in enumerate(node.args)
                  if (positions is None or i in positions) and not isinstance(a, ast.Starred)]
        texts += [k.value for k in node.keywords if k.arg in keywords + EVERYWHERE]
        list_positions, list_keywords = TEXT_LISTS.get(element, ((), ()))
        lists += [a for i, a in enumerate(node.args) if i in list_positions]
        lists += [k.value for k in node.keywords if k.arg in list_keywords]
        formats = [k.value for k in node.keywords if k.arg == "format_func"
                   and element in TEXT_LISTS]
        for arg in texts:
            if not literal(arg):
                found.append(f"{path.name}:{node.lineno}: {element}: {ast.unparse(arg)[:90]}")
        for arg in lists:
            if not literal_list(arg) and not (formats and isinstance(formats[0], ast.Lambda)):
                found.append(f"{path.name}:{node.lineno}: {element} (list): "
                             f"{ast.unparse(arg)[:80]}")
        for fmt in formats:
            if not (isinstance(fmt, ast.Lambda) and literal(fmt.body)):
                found.append(f"{path.name}:{node.lineno}: {element} (format_func): "
                             f"{ast.unparse(fmt)[:80]}")
    return found


def test_no_page_gives_a_streamlit_text_element_text_it_did_not_escape() -> None:
    found = [place for path in SOURCES for place in unescaped(path)]
    assert found == [], "text that may be data, given to an element that renders " \
        "markdown (make it literal with ui.md where it is written):\n" + "\n".join(found)


def test_the_check_finds_what_the_attack_of_issue_35_found() -> None:
    """The two breaks the attacker found, as they were written, are caught."""
    import textwrap

    def check(source: str) -> list[str]:
        path = Path("/nonexistent/page.py")
        tree = textwrap.dedent(source)
        found = []
        original = Path.read_text
        try:
            Path.read_text = lambda self, encoding=None: tree if self == path \
                else original(self, encoding=encoding)  # type: ignore[method-assign]
            found = unescaped(path)
        finally:
            Path.read_text = original  # type: ignore[method-assign]
        return found

    assert check("""
        c1.metric(f"Most accurate in {data.game_title(game)}", top["player"],
                  f"{top['accuracy']:.1f}% best or good")
        """)  # the Decisions page's top player, given to st.metric as it is
    assert check("""
        said += f" {' '.join(to_outline)}: not in the hand."
        st.caption(said)
        """)  # the Verify page's illegal cards, in a caption
    assert check('st.warning(note)') and check('st.tabs(titles)') and \
        check('st.expander(f"Round {rnd}")') and check('sb.caption(f"as {name}")') and \
        check('st.radio("x", names)') and check('st.button(label)')
    assert not check('st.caption(ui.md(f"{name} · SHA-256 {sha}"))')
    assert not check('st.caption(f"{ui.code(name)} · SHA-256 {ui.code(sha)}")')
    assert check('st.caption(f"{code} · SHA-256")')  # a variable named code is not ui.code
    assert not check('st.caption(f"{ui.count(n, \'file\')} in all; {len(x):,} disputed")')
    assert not check('st.tabs([ui.md(data.game_title(g)) for g in games])')
    assert not check('st.warning("\\n".join([f"**{ui.md(a)}**"] + [ui.md(b) for b in c]))')


def streamlit_calls(path: Path) -> list[tuple[str, ast.Call]]:
    """Every call in `path` of a name Streamlit's module or its containers have."""
    import streamlit as st
    from streamlit.delta_generator import DeltaGenerator

    api = {n for n in dir(st) if not n.startswith("_")} | \
        {n for n in dir(DeltaGenerator) if not n.startswith("_")}
    return [(node.func.attr, node)
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr in api and node.func.attr not in MAP_OF_PANDAS
            and _receiver(node) not in RECEIVERS_THAT_ARE_NOT_STREAMLIT]


def test_every_streamlit_call_of_the_pages_is_checked_or_renders_no_markdown() -> None:
    """Escaping cannot be forgotten for an element the check above does not know: each one
    a page calls is either checked or known to render no markdown."""
    unknown = sorted({f"{path.name}: {name}" for path in SOURCES
                      for name, _ in streamlit_calls(path)
                      if name not in TEXT_ELEMENTS and name not in TEXT_LISTS
                      and name not in NO_MARKDOWN})
    assert unknown == [], "Streamlit calls nobody has classified (add each to TEXT_ELEMENTS " \
        "if it renders a text as markdown, else to NO_MARKDOWN):\n" + "\n".join(unknown)
    built = [f"{path.name}:{call.lineno}" for path in SOURCES if path.name not in HTML_BUILDERS
             for name, call in streamlit_calls(path)
             if name == "html" and not all(literal(a) for a in call.args)]
    assert built == [], "HTML built from data outside ui.py (use ui's builders): " + \
        ", ".join(built)
    assert "table" not in NO_MARKDOWN  # st.table renders its cells as markdown
