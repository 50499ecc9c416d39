#!/usr/bin/env python3
"""Lints the SVG plots ridge writes, from their geometry alone.

    python3 tests/support/svg_lint.py FILE.svg...

For each file, every problem is printed as "FILE: problem" and the exit status
is 1 if there was any (0 if none, 2 on a file that is not SVG). The checks:

- every text lies inside the canvas, and a text inside a clipped group
  (<g clip-path="url(#id)">) inside that clip rectangle, so nothing is cut off;
- no two text boxes overlap (a text and its halo copy, the same text at the
  same place, are one);
- there is a title: a <title> element and a visible <text class="title">;
- every axis (<g class="axis x"> or <g class="axis y">, as svg.c's axis helper
  writes them; a plot has at least one of each) has exactly one axis title
  (<text class="axis-title">) whose unit is given in parentheses at its end,
  "arithmetic intensity (FLOP/byte)", and at least 4 tick labels
  (<text class="tick">), distinct and at distinct places. An axis of named
  rows ("axis y categorical": the fleet plot's ceilings) has no unit; it
  needs its title and 4 labels all the same.

A text's box is estimated as the drawing code estimates it (app/view/svg.c,
svg_text_box): each character's DejaVu Sans advance width, read from
svg.c's table (dejavu_sans_advance; any other character a whole em), from
1 em above the baseline to 0.25 em below it, placed by its text-anchor; a
rotate(A CX CY) transform turns the box about (CX, CY).
"""
import math
import os
import re
import sys
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"
MIN_TICKS = 4
EPS = 0.01


def advance_widths():
    """svg.c's dejavu_sans_advance: ems of the characters ' ' to '~'."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "app", "view", "svg.c")
    with open(path, encoding="utf-8") as f:
        m = re.search(r"dejavu_sans_advance\[95\] = \{([^}]*)\}", f.read())
    widths = [int(v) / 1000 for v in re.findall(r"[0-9]+", m.group(1))] if m else []
    if len(widths) != 95:
        sys.exit("svg_lint.py: no table of 95 advance widths (dejavu_sans_advance) in %s" % path)
    return {chr(32 + i): w for i, w in enumerate(widths)}


ADVANCE = advance_widths()


def text_width(size, content):
    return size * sum(ADVANCE.get(c, 1.0) for c in content)


def number(text, default=None):
    if text is None:
        return default
    m = re.match(r"\s*(-?[0-9.]+(?:e[-+]?[0-9]+)?)", text)
    return float(m.group(1)) if m else default


def classes(element):
    return (element.get("class") or "").split()


def text_box(element, inherited_size):
    """(x0, y0, x1, y1) of a <text>, or a reason why it cannot be estimated."""
    size = number(element.get("font-size"), inherited_size)
    x, y = number(element.get("x"), 0.0), number(element.get("y"), 0.0)
    content = "".join(element.itertext())
    width = text_width(size, content)
    anchor = element.get("text-anchor", "start")
    x0 = x - width if anchor == "end" else x - width / 2 if anchor == "middle" else x
    box = (x0, y - size, x0 + width, y + 0.25 * size)
    transform = element.get("transform")
    if not transform:
        return box
    m = re.fullmatch(r"\s*rotate\(\s*(-?[0-9.]+)(?:[ ,]+(-?[0-9.]+)[ ,]+(-?[0-9.]+))?\s*\)\s*", transform)
    if not m:
        return "unsupported transform '%s'" % transform
    angle = math.radians(float(m.group(1)))
    cx, cy = float(m.group(2) or 0), float(m.group(3) or 0)
    corners = [(box[0], box[1]), (box[2], box[1]), (box[0], box[3]), (box[2], box[3])]
    turned = [
        (cx + (px - cx) * math.cos(angle) - (py - cy) * math.sin(angle),
         cy + (px - cx) * math.sin(angle) + (py - cy) * math.cos(angle))
        for px, py in corners
    ]
    xs, ys = [p[0] for p in turned], [p[1] for p in turned]
    return (min(xs), min(ys), max(xs), max(ys))


class Text:
    def __init__(self, element, box, axis, clip):
        self.content = "".join(element.itertext())
        self.classes = classes(element)
        self.box = box
        self.axis = axis  # the <g class="axis ..."> it is in, or None
        self.clip = clip  # the clip rectangle it is drawn in, or None
        self.key = (element.get("x"), element.get("y"), element.get("font-size"), self.content)

    def describe(self):
        return "'%s' (%.1f,%.1f)-(%.1f,%.1f)" % ((self.content,) + self.box)


def overlap(a, b):
    return a[0] < b[2] - EPS and b[0] < a[2] - EPS and a[1] < b[3] - EPS and b[1] < a[3] - EPS


def lint(path):
    problems = []
    try:
        root = ET.parse(path).getroot()
    except (ET.ParseError, OSError) as e:
        print("%s: not readable XML: %s" % (path, e))
        return 2
    if root.tag != NS + "svg":
        print("%s: not an SVG document" % path)
        return 2
    width, height = number(root.get("width")), number(root.get("height"))
    if width is None or height is None:
        view = (root.get("viewBox") or "").split()
        if len(view) != 4:
            print("%s: no width, height or viewBox" % path)
            return 2
        width, height = float(view[2]), float(view[3])

    clips = {}
    for clip in root.iter(NS + "clipPath"):
        rect = clip.find(NS + "rect")
        if rect is not None:
            x, y = number(rect.get("x"), 0.0), number(rect.get("y"), 0.0)
            clips[clip.get("id")] = (x, y, x + number(rect.get("width"), 0.0), y + number(rect.get("height"), 0.0))

    texts, axes = [], []

    def walk(element, size, axis, clip):
        if element.tag == NS + "g":
            if element.get("transform"):
                problems.append("a group with a transform ('%s'): not supported" % element.get("transform"))
            size = number(element.get("font-size"), size)
            if "axis" in classes(element):
                axis = {"classes": classes(element), "texts": []}
                axes.append(axis)
            ref = re.fullmatch(r"url\(#(.*)\)", element.get("clip-path") or "")
            if ref:
                clip = clips.get(ref.group(1))
        if element.tag == NS + "text":
            box = text_box(element, size)
            if isinstance(box, str):
                problems.append(box)
                return
            t = Text(element, box, axis, clip)
            texts.append(t)
            if axis is not None:
                axis["texts"].append(t)
            return
        for child in element:
            walk(child, size, axis, clip)

    walk(root, number(root.get("font-size"), 16.0), None, None)

    # One text per place: a halo drawn as a second copy is the same label.
    unique, seen = [], set()
    for t in texts:
        if t.key not in seen:
            seen.add(t.key)
            unique.append(t)

    for t in unique:
        x0, y0, x1, y1 = t.box
        if x0 < -0.5 or y0 < -0.5 or x1 > width + 0.5 or y1 > height + 0.5:
            problems.append("text outside the %gx%g canvas: %s" % (width, height, t.describe()))
        if t.clip and (x0 < t.clip[0] - 0.5 or y0 < t.clip[1] - 0.5 or x1 > t.clip[2] + 0.5 or
                       y1 > t.clip[3] + 0.5):
            problems.append("text cut by its clip rectangle (%.1f,%.1f)-(%.1f,%.1f): %s" %
                            (t.clip + (t.describe(),)))
    for i, a in enumerate(unique):
        for b in unique[i + 1:]:
            if overlap(a.box, b.box):
                problems.append("texts overlap: %s and %s" % (a.describe(), b.describe()))

    titles = [e for e in root if e.tag == NS + "title" and (e.text or "").strip()]
    if not titles:
        problems.append("no <title>")
    if not any("title" in t.classes and t.content.strip() for t in unique):
        problems.append("no visible title (<text class=\"title\">)")

    kinds = set()
    for axis in axes:
        name = " ".join(axis["classes"])
        kind = "x" if "x" in axis["classes"] else "y" if "y" in axis["classes"] else None
        if kind is None:
            problems.append("axis '%s': neither x nor y" % name)
            continue
        kinds.add(kind)
        categorical = "categorical" in axis["classes"]
        titles = [t for t in axis["texts"] if "axis-title" in t.classes]
        ticks = [t for t in axis["texts"] if "tick" in t.classes]
        if len(titles) != 1:
            problems.append("axis '%s': %d axis titles, not 1" % (name, len(titles)))
        elif not categorical and not re.search(r"\([^()]*[^()\s][^()]*\)\s*$", titles[0].content):
            problems.append("axis '%s': its title '%s' gives no unit in parentheses" % (name, titles[0].content))
        if len(ticks) < MIN_TICKS:
            problems.append("axis '%s' (%s): %d tick labels, fewer than %d" %
                            (name, titles[0].content if titles else "untitled", len(ticks), MIN_TICKS))
        if len(set(t.content for t in ticks)) != len(ticks):
            problems.append("axis '%s': a tick label given twice: %s" % (name, ", ".join(t.content for t in ticks)))
        centre = (lambda b: (b[0] + b[2]) / 2) if kind == "x" else (lambda b: (b[1] + b[3]) / 2)
        places = sorted(round(centre(t.box), 1) for t in ticks)
        if len(set(places)) != len(places):
            problems.append("axis '%s': two tick labels at one place" % name)
    for kind in ("x", "y"):
        if kind not in kinds:
            problems.append("no %s axis (<g class=\"axis %s\">)" % (kind, kind))

    for p in problems:
        print("%s: %s" % (path, p))
    return 1 if problems else 0


def main(argv):
    if len(argv) < 2:
        print("usage: svg_lint.py FILE.svg...", file=sys.stderr)
        return 2
    worst = 0
    for path in argv[1:]:
        worst = max(worst, lint(path))
    return worst


if __name__ == "__main__":
    sys.exit(main(sys.argv))
