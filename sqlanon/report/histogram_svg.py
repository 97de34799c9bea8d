"""The class-size histogram of a risk section as a self-contained SVG document.

Drawn here rather than with a plotting library so that the Markdown summary needs nothing
beyond the base install. The same string serves as a ``.svg`` file and inline in an HTML
page, so it holds no XML declaration (HTML would show it as a bogus comment), no ``<style>``
element (inline, its rules would restyle the whole page), no ``id`` (two charts on one page
would clash), no script, font or link: only shapes, text and presentation attributes. It is
pure ASCII (other characters as numeric references), whatever encoding the host page uses.
"""

from __future__ import annotations

import math
from typing import Any
from xml.sax.saxutils import escape, quoteattr

TITLE = "Records by the size of their group"
X_LABEL = "size of the group (records with the same quasi-identifier values)"
Y_LABEL = "share of records (%)"
BEFORE, AFTER, RISK = "#b0b0b0", "#1f77b4", "#d62728"
INK, GRID = "#222222", "#e3e3e3"

WIDTH = 850
FONT = 12  # tick labels, axis labels, legend
CHAR = 0.62  # width of an average sans-serif character, in ems: a generous guess (no font metrics here)
LABEL_CHARS = 16  # bucket labels longer than this are cut (the full label stays in the bar's tooltip)
LEFT, RIGHT, TOP = 64, 16, 52  # margins around the plot; TOP holds the title and the at-risk note
BAR_SPACE = 0.8  # share of a bucket's slot the bars fill


def histogram_svg(risk: dict[str, Any]) -> str:
    """The share of records per group-size bucket, before and after, as an SVG document.

    Args:
        risk: the ``risk`` section of a report: ``{"before": ..., "after": ...}`` (``after``
            None when nothing was released) or a single section (the ``risk`` command's).
            A section has ``records``, ``threshold`` and ``histogram`` (buckets with
            ``sizes``, ``high`` and ``records``).

    The y axis is linear, in percent of each series' records, each bar labelled with its
    value; a dashed line closes the buckets whose every record is at risk
    (``1/size > threshold``), as the PNG drawn before with matplotlib did.
    """
    anonymized = "before" in risk
    before, after = (risk["before"], risk["after"]) if anonymized else (risk, None)
    buckets = before["histogram"]
    series = [("before (input)", BEFORE, before)] + ([("after (released)", AFTER, after)] if after is not None else [])
    shares = [_shares(section, buckets) for _, _, section in series]
    labels = [_cut(str(b["sizes"])) for b in buckets]

    legend: list[tuple[str, str | None]] = [(name, colour) for name, colour, _ in series] if anonymized else []
    if anonymized and after is None:
        legend.append(("after: nothing released", None))
    legend_width = max((len(name) for name, _ in legend), default=0) * FONT * CHAR + 36 if legend else 0
    plot_w = WIDTH - LEFT - RIGHT - legend_width
    slot = plot_w / max(len(buckets), 1)
    widest = max((len(label) for label in labels), default=0) * FONT * CHAR
    slanted = widest > slot - 6  # would touch its neighbour: slant all labels instead
    tick_depth = widest * 0.85 * math.sin(math.radians(40)) + FONT if slanted else FONT  # CHAR is generous
    plot_h = 230
    bottom = TOP + plot_h
    height = math.ceil(bottom + 8 + tick_depth + 12 + FONT + 14)

    top_value, step, decimals = _axis(max((s for row in shares for s in row), default=0.0))

    def y(share: float) -> float:  # the pixel row of a share
        return bottom - share / top_value * plot_h

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" viewBox="0 0 {WIDTH} {height}" '
        f'role="img" aria-label={quoteattr(TITLE)} font-family="sans-serif" fill="{INK}">',
        f"<title>{escape(TITLE)}</title>",
        f'<rect width="{WIDTH}" height="{height}" fill="#ffffff"/>',
        _text(LEFT + plot_w / 2, 24, TITLE, size=15, anchor="middle"),
    ]

    # the at-risk buckets: every size in them is below 1/threshold
    limit = 1 / before["threshold"] if before["threshold"] else None
    edge = sum(1 for b in buckets if b["high"] is not None and b["high"] < limit) if limit else 0
    if edge:
        risk_x = _n(LEFT + edge * slot)
        out.append(
            f'<rect class="at-risk" x="{LEFT}" y="{TOP}" width="{_n(edge * slot)}" height="{plot_h}" '
            f'fill="{RISK}" fill-opacity="0.06"/>'
        )

    for i in range(round(top_value / step) + 1):  # grid lines and their labels
        value = i * step
        at = _n(y(value))
        out.append(
            f'<line class="grid" x1="{LEFT}" y1="{at}" x2="{_n(LEFT + plot_w)}" y2="{at}" stroke="{GRID}" '
            'stroke-width="1"/>'
        )
        out.append(_text(LEFT - 6, y(value) + FONT * 0.35, f"{value:.{decimals}f}", anchor="end", cls="tick y"))

    width = slot * BAR_SPACE / len(series)
    values = width >= 22  # room above each bar for its value ("39.7", 20 px wide in 10 px type)
    for j, ((name, colour, section), row) in enumerate(zip(series, shares)):
        kind = "before" if j == 0 else "after"
        for i, (bucket, share) in enumerate(zip(buckets, row)):
            records = _records(section, bucket)
            left = LEFT + i * slot + slot * (1 - BAR_SPACE) / 2 + j * width
            tip = (
                f"{name}, groups of {bucket['sizes']}: {records:,} record{'' if records == 1 else 's'} ({share:.2f} %)"
            )
            out.append(
                f'<rect class="bar {kind}" x="{_n(left)}" y="{_n(y(share))}" width="{_n(width)}" '
                f'height="{_n(bottom - y(share))}" fill="{colour}"><title>{escape(tip)}</title></rect>'
            )
            if values:  # the bars of a few records would be invisible without it
                inside = y(share) - 13 < TOP  # a bar up to the top of the axis: its value inside, under its top
                out.append(
                    _text(
                        left + width / 2,
                        y(share) + 12 if inside else y(share) - 3,
                        _value(share),
                        size=10,
                        anchor="middle",
                        cls=f"value {kind}",
                        fill=("#ffffff" if kind == "after" else INK) if inside else "#555555",
                    )
                )

    if edge:  # above the bars, so that a tall bar never hides it
        out.append(
            f'<line x1="{risk_x}" y1="{TOP - 14}" x2="{risk_x}" y2="{bottom}" stroke="{RISK}" stroke-width="1.2" '
            f'stroke-dasharray="5 3"/>'
        )
        out.append(_text(LEFT + edge * slot - 5, TOP - 5, "at risk \u2190", size=11, anchor="end", fill=RISK))

    out.append(f'<path d="M{LEFT} {TOP}V{bottom}H{_n(LEFT + plot_w)}" fill="none" stroke="{INK}" stroke-width="1"/>')
    for i, label in enumerate(labels):
        centre = LEFT + (i + 0.5) * slot
        if slanted:
            out.append(
                _text(
                    centre + FONT * 0.3,
                    bottom + 8 + FONT * 0.7,
                    label,
                    anchor="end",
                    cls="tick x",
                    rotate=(-40, centre + FONT * 0.3, bottom + 8 + FONT * 0.7),
                )
            )
        else:
            out.append(_text(centre, bottom + 8 + FONT * 0.8, label, anchor="middle", cls="tick x"))
    out.append(_text(LEFT + plot_w / 2, bottom + 8 + tick_depth + 12 + FONT * 0.8, X_LABEL, anchor="middle"))
    out.append(_text(18, TOP + plot_h / 2, Y_LABEL, anchor="middle", rotate=(-90, 18, TOP + plot_h / 2)))

    for i, (entry, swatch) in enumerate(legend):  # outside the plot: never over a bar
        line_y = TOP + 6 + i * (FONT + 10)
        left = LEFT + plot_w + 20
        if swatch:
            out.append(f'<rect x="{_n(left)}" y="{_n(line_y)}" width="18" height="{FONT - 2}" fill="{swatch}"/>')
        out.append(_text(left + 24, line_y + FONT - 2, entry, cls="legend", fill=INK if swatch else "#666666"))
    out.append("</svg>")
    # ASCII only: the arrow and any character of a label become numeric references
    return "\n".join(out).encode("ascii", "xmlcharrefreplace").decode("ascii") + "\n"


def _records(section: dict[str, Any] | None, bucket: dict[str, Any]) -> int:
    """The records of ``section`` in the bucket labelled like ``bucket`` (0 if it has none)."""
    if section is None:
        return 0
    return next((h["records"] for h in section["histogram"] if h["sizes"] == bucket["sizes"]), 0)


def _shares(section: dict[str, Any], buckets: list[dict[str, Any]]) -> list[float]:
    total = section["records"]
    return [100 * _records(section, b) / total if total else 0.0 for b in buckets]


def _axis(highest: float) -> tuple[float, float, int]:
    """The top of the y axis, the step between its labels and their decimals: a round step
    (1, 2, 2.5 or 5 times a power of ten) giving at most 8 intervals up to 5 % above the
    highest bar, but never above 100 % (shares cannot pass it)."""
    target = min(highest * 1.05, max(highest, 100.0)) if highest > 0 else 1.0
    exponent = math.floor(math.log10(target / 8))
    for mantissa in (1, 2, 2.5, 5, 10):
        step = mantissa * 10.0**exponent
        if math.ceil(target / step - 1e-9) <= 8:
            break
    decimals = max(0, -exponent) + (1 if mantissa == 2.5 else 0)
    if mantissa == 10:
        decimals = max(0, decimals - 1)
    return round(math.ceil(target / step - 1e-9) * step, 12), step, decimals


def _value(share: float) -> str:
    """A bar's share in one decimal; a share that would round to 0.0 or 100.0 is not called that."""
    if share in (0, 100):
        return f"{share:.0f}"
    return "<0.1" if share < 0.05 else ">99.9" if share >= 99.95 else f"{share:.1f}"


def _cut(label: str) -> str:
    return label if len(label) <= LABEL_CHARS else label[: LABEL_CHARS - 1] + "\u2026"


def _n(value: float) -> str:
    """A coordinate: two decimals at most, no trailing zeros."""
    return f"{value:.2f}".rstrip("0").rstrip(".")


def _text(
    x: float,
    y: float,
    text: str,
    *,
    size: int = FONT,
    anchor: str = "start",
    cls: str | None = None,
    fill: str | None = None,
    rotate: tuple[float, float, float] | None = None,
) -> str:
    attributes = f'x="{_n(x)}" y="{_n(y)}" font-size="{size}" text-anchor="{anchor}"'
    if cls:
        attributes += f' class="{cls}"'
    if fill:
        attributes += f' fill="{fill}"'
    if rotate:
        attributes += f' transform="rotate({_n(rotate[0])} {_n(rotate[1])} {_n(rotate[2])})"'
    return f"<text {attributes}>{escape(text)}</text>"
